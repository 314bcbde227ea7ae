import GatehouseCore

/// The development seed's password hashes, made once per process for each hasher's ``PasswordHasher/reuseKey``
/// and reused by every later seed: a reset to the seed, an in-process emulator's first start. The seed's passwords
/// are published (README, `dev-seed.json`), so a hash shared between resets gives nothing away; a password a
/// person sets never comes here, and a hasher of another cost (production's) makes and keeps its own.
package final class SeedPasswordHashes: Sendable {
    /// The process's: every server in it shares the seed's hashes, as the issue asks ("once per process").
    package static let process = SeedPasswordHashes()

    /// Hashes by reuse key and password. Bounded by its callers: three passwords for each cost in use.
    private let made = LockedValue<[Key: String]>([:])

    private struct Key: Hashable {
        let hasher: String
        let password: String
    }

    package init() {}

    /// A hash of `password` by `hasher`, or one an interchangeable hasher made earlier in this process. Two seeds
    /// at once may both hash; the first hash kept stays.
    package func hash(_ password: String, with hasher: any PasswordHasher) async throws -> String {
        guard let reuse = hasher.reuseKey else { return try await hasher.hash(password) }
        let key = Key(hasher: reuse, password: password)
        if let kept = made.withLockedValue({ $0[key] }) { return kept }
        let hash = try await hasher.hash(password)
        return made.withLockedValue { made in
            if let first = made[key] { return first }
            made[key] = hash
            return hash
        }
    }
}
