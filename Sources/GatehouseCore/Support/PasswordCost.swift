import Foundation

/// bcrypt's cost (the base-2 log of its rounds) for the passwords people and administrators choose: every fact
/// about it, read by the configuration (`password_cost`), the production checks and the hashers.
///
/// A production server hashes at ``production`` unless configured otherwise, and refuses to start below
/// ``productionFloor``. Development mode hashes at ``development``, bcrypt's minimum, so that an emulator's
/// people, seed and resets cost what their rows cost (about a millisecond a hash instead of a hundred). bcrypt
/// writes the cost into each hash, so a hash verifies at whatever cost made it; a production server re-hashes a
/// password made at a lower cost at its own the next time that password logs in (``isBelow(_:cost:)``).
package enum PasswordCost {
    /// bcrypt's least cost (16 rounds); HummingbirdBcrypt traps below it.
    package static let minimum = 4
    /// bcrypt's greatest cost.
    package static let maximum = 31
    /// Production's default: about 130 ms of one core per hash on the benchmark machine.
    package static let production = 11
    /// The least cost a production server starts with (`password_cost` below it is refused).
    package static let productionFloor = 10
    /// Development mode's default: bcrypt's minimum.
    package static let development = minimum

    /// The cost `mode` hashes at when `password_cost` is not configured.
    package static func `default`(for mode: ServerMode) -> Int {
        mode == .production ? production : development
    }

    /// The cost written in a bcrypt hash (`$2b$11$…` → 11); nil for an empty or malformed hash.
    package static func of(_ hash: String) -> Int? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[2].count == 2, let cost = Int(parts[2]) else { return nil }
        return cost
    }

    /// Whether `hash` was made at a lower cost than `cost` (a malformed hash counts as lower).
    package static func isBelow(_ hash: String, cost: Int) -> Bool {
        (of(hash) ?? 0) < cost
    }
}

extension UserRecord {
    /// The stored hash of a person with no password: no password verifies against it.
    package static let noPassword = ""

    /// Whether the person has a password (a hash to verify against).
    package var hasPassword: Bool { passwordHash != Self.noPassword }
}
