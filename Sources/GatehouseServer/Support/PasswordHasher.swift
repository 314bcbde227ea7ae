import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords. bcrypt (hummingbird-auth) behind a seam so tests can use a low cost.
public protocol PasswordHasher: Sendable {
    func hash(_ password: String) async throws -> String
    func verify(_ password: String, hash: String) async throws -> Bool
}

/// bcrypt on the NIO thread pool, so a hash (tens of milliseconds at cost 10+) never blocks an event loop.
public struct BcryptPasswordHasher: PasswordHasher {
    public let cost: UInt8
    public init(cost: UInt8 = 11) { self.cost = cost }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
