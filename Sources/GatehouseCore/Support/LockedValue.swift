import Foundation

/// A value behind a lock, for the caches' small critical sections.
///
/// The core target stays free of SwiftNIO (it imports no networking package), so this stands in for
/// `NIOLockedValueBox`; `Synchronization.Mutex` would do, but needs macOS 15 and the package supports 14.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
