import Foundation

/// The SDK's source of "now", injected so expiry and refresh rules are testable.
public protocol SDKClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemSDKClock: SDKClock {
    public init() {}
    public func now() -> Date { Date() }
}
