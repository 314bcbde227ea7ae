import Foundation

/// What the device shows the person while it waits (Facebook's `DeviceLoginCodeInfo`).
public final class DeviceLoginCodeInfo: Sendable, CustomStringConvertible {
    /// The polling code (secret to the device; Facebook's `identifier`).
    public let identifier: String
    /// The short code the person types at ``verificationURL``.
    public let loginCode: String
    public let verificationURL: URL
    public let expirationDate: Date
    /// Seconds between polls.
    public let pollingInterval: UInt

    public init(
        identifier: String, loginCode: String, verificationURL: URL, expirationDate: Date, pollingInterval: UInt
    ) {
        self.identifier = identifier
        self.loginCode = loginCode
        self.verificationURL = verificationURL
        self.expirationDate = expirationDate
        self.pollingInterval = pollingInterval
    }

    /// Never prints the polling code.
    public var description: String {
        "DeviceLoginCodeInfo(loginCode: \(loginCode), verificationURL: \(verificationURL))"
    }
}

/// How a device login ended (Facebook's `DeviceLoginManagerResult`).
public final class DeviceLoginManagerResult: Sendable {
    /// The new token (also made `AccessToken.current`); nil when cancelled.
    public let accessToken: AccessToken?
    /// The person cancelled, the code expired, or `cancel()` was called.
    public let isCancelled: Bool

    public init(token: AccessToken?, isCancelled: Bool) {
        self.accessToken = token
        self.isCancelled = isCancelled
    }
}

/// The device-login error subcodes (Facebook's `DeviceLoginError`), found in `GraphAPIError.subcode`.
public enum DeviceLoginError: Int, Sendable, CaseIterable {
    case excessivePolling = 1349172
    case authorizationDeclined = 1349173
    case authorizationPending = 1349174
    case codeExpired = 1349152
}

/// Hears a device login's progress (Facebook's `DeviceLoginManagerDelegate`).
public protocol DeviceLoginManagerDelegate: AnyObject {
    /// Show `codeInfo.loginCode` and `codeInfo.verificationURL` to the person.
    func deviceLoginManager(_ loginManager: DeviceLoginManager, startedWith codeInfo: DeviceLoginCodeInfo)
    /// Called once: a token, a cancellation (`result.isCancelled`) or an error.
    func deviceLoginManager(
        _ loginManager: DeviceLoginManager, completedWith result: DeviceLoginManagerResult?, error: (any Error)?)
}
