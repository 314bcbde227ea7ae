import Foundation

/// The source of "now" for everything time-dependent on the server.
///
/// Injected everywhere so token expiry, code lifetimes and data-access expiry are testable,
/// and so the emulator can move time forward on request.
package protocol GatehouseClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
package struct SystemClock: GatehouseClock {
    package init() {}
    package func now() -> Date { Date() }
}

/// A clock that starts at a given instant (or the wall clock) and can be moved forward.
///
/// Used by tests and by the emulator's clock control: it adds an offset to an underlying clock.
package final class AdjustableClock: GatehouseClock, @unchecked Sendable {
    private let lock = NSLock()
    private var fixed: Date?
    private var offset: TimeInterval = 0
    private let base: any GatehouseClock

    /// - Parameter fixed: when given, time stands still at this instant until advanced.
    package init(fixed: Date? = nil, base: any GatehouseClock = SystemClock()) {
        self.fixed = fixed
        self.base = base
    }

    package func now() -> Date {
        lock.lock(); defer { lock.unlock() }
        return (fixed ?? base.now()).addingTimeInterval(offset)
    }

    /// Moves time forward (or back, with a negative interval).
    package func advance(by interval: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        offset += interval
    }

    /// The total amount time has been moved by `advance(by:)`.
    package var currentOffset: TimeInterval {
        lock.lock(); defer { lock.unlock() }
        return offset
    }
}
