import Foundation

/// One value per ``GatehouseKitEnvironment``, for SDK state that Facebook keeps in statics
/// (`FBSession.activeSession`, the profile's token observer) but that must follow the environment
/// a program or test installed.
///
/// Environments are held weakly, so an identifier is never confused with a later environment that
/// happens to reuse the same address.
final class EnvironmentScoped<Value: Sendable>: @unchecked Sendable {
    private struct Entry {
        weak var environment: GatehouseKitEnvironment?
        var value: Value
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    init() {}

    func value(for environment: GatehouseKitEnvironment) -> Value? {
        lock.withLock { entries.first { $0.environment === environment }?.value }
    }

    /// The stored value, or `make()`'s result stored and returned.
    func value(for environment: GatehouseKitEnvironment, orInsert make: () -> Value) -> Value {
        lock.withLock {
            if let existing = entries.first(where: { $0.environment === environment }) { return existing.value }
            let value = make()
            prune()
            entries.append(Entry(environment: environment, value: value))
            return value
        }
    }

    /// Stores `value` (nil removes it) and returns the value it replaced.
    @discardableResult
    func set(_ value: Value?, for environment: GatehouseKitEnvironment) -> Value? {
        lock.withLock {
            let index = entries.firstIndex { $0.environment === environment }
            let previous = index.map { entries[$0].value }
            if let index { entries.remove(at: index) }
            prune()
            if let value { entries.append(Entry(environment: environment, value: value)) }
            return previous
        }
    }

    private func prune() { entries.removeAll { $0.environment == nil } }
}
