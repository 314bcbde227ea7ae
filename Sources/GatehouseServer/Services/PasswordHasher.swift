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
}

extension PasswordHasher {
    /// Hashes a random password each time: correct for any hasher, but adds a hash to every unknown-email
    /// attempt. Hashers used in production cache theirs (``BcryptPasswordHasher`` does).
    package func dummyHash() async throws -> String {
        // Always the system CSPRNG, never the injected (possibly seeded) source: nobody may know this password.
        try await hash(SystemRandomSource().hex(32))
    }
}

/// bcrypt on the NIO thread pool, so a hash (tens of milliseconds at cost 10+) never blocks an event loop.
package struct BcryptPasswordHasher: PasswordHasher {
    package let cost: UInt8
    private let dummy = DummyHashCache()
    package init(cost: UInt8 = 11) { self.cost = cost }

    package func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    package func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

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
