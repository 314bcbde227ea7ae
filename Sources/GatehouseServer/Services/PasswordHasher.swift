import GatehouseCore
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords. bcrypt (hummingbird-auth) behind a seam so tests can use a low cost.
package protocol PasswordHasher: Sendable {
    func hash(_ password: String) async throws -> String
    func verify(_ password: String, hash: String) async throws -> Bool
    /// A hash of a password nobody knows, at the same cost as real ones. Password forms verify against it when
    /// the email is unknown, so "no such person" costs as much time as "wrong password" (no enumeration by timing).
    func dummyHash() async throws -> String
    /// Whether a password that just verified against `hash` should be hashed again and stored: its hash was made
    /// at a lower cost than this hasher's (a development-mode or older hash on a production server).
    func needsRehash(_ hash: String) -> Bool
    /// Hashers with the same key make interchangeable hashes (bcrypt: its cost), so a hash of a password everyone
    /// knows, the development seed's, is made once per process and reused (``SeedPasswordHashes``). nil: never.
    var reuseKey: String? { get }
}

extension PasswordHasher {
    /// Hashes a random password each time: correct for any hasher, but adds a hash to every unknown-email
    /// attempt. Hashers used in production cache theirs (``BcryptPasswordHasher`` does).
    package func dummyHash() async throws -> String {
        // Always the system CSPRNG, never the injected (possibly seeded) source: nobody may know this password.
        try await hash(SystemRandomSource().hex(32))
    }

    /// Never: a hasher without a cost keeps every hash it verified.
    package func needsRehash(_ hash: String) -> Bool { false }

    /// None: a hasher that says nothing of its hashes hashes every time.
    package var reuseKey: String? { nil }
}

/// bcrypt on the NIO thread pool, so a hash (tens of milliseconds at cost 10+) never blocks an event loop.
package struct BcryptPasswordHasher: PasswordHasher {
    package let cost: UInt8
    private let dummy = DummyHashCache()
    /// - Parameter cost: clamped to bcrypt's range (``PasswordCost``); the configuration's setting checks it first.
    package init(cost: Int = PasswordCost.production) {
        self.cost = UInt8(min(max(cost, PasswordCost.minimum), PasswordCost.maximum))
    }

    /// The hasher `configuration` asks for: ``GatehouseConfiguration/effectivePasswordCost``.
    package init(_ configuration: GatehouseConfiguration) { self.init(cost: configuration.effectivePasswordCost) }

    package func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    package func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    package func needsRehash(_ hash: String) -> Bool { PasswordCost.isBelow(hash, cost: Int(cost)) }

    /// Any two bcrypt hashers of one cost: a hash either makes verifies the same, and costs the same to check.
    package var reuseKey: String? { "bcrypt-\(cost)" }

    /// Computed once per hasher (copies share it), with a random password that is then forgotten.
    package func dummyHash() async throws -> String {
        if let cached = dummy.value { return cached }
        // Always the system CSPRNG, never the injected (possibly seeded) source: nobody may know this password.
        let made = try await hash(SystemRandomSource().hex(32))
        dummy.value = made
        return made
    }
}

/// The lazily computed dummy hash, shared by every copy of one ``BcryptPasswordHasher``.
private final class DummyHashCache: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    var value: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
