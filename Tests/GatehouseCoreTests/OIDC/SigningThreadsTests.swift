import Foundation
import Testing
@testable import GatehouseCore

/// RS256 signatures are computed on Dispatch threads, off whatever executor the request runs on (in the server,
/// the event loops), and the signed token is unchanged by where it was signed.
@Suite struct SigningThreadsTests {
    final class MemoryKeyStore: SigningKeyStore, @unchecked Sendable {
        let lock = NSLock()
        var keys: [SigningKeyRecord] = []
        func insert(_ key: SigningKeyRecord) async throws { lock.withLock { keys.append(key) } }
        func all() async throws -> [SigningKeyRecord] { lock.withLock { keys } }
        func retire(kid: String, at: Date, publishUntil: Date) async throws {}
    }

    @Test func theBodyRunsWithTheSigningThreadsPreferred() async throws {
        let preferred = try await onSigningThreads {
            withUnsafeCurrentTask { $0?.unownedTaskExecutor == SigningThreads.shared.asUnownedTaskExecutor() }
        }
        #expect(preferred == true)
        // Outside it, nothing is preferred.
        #expect(withUnsafeCurrentTask { $0?.unownedTaskExecutor } == nil)
    }

    @Test func manySignaturesAtOnceAllComeBackSignedByTheActiveKey() async throws {
        let ring = KeyRing(store: MemoryKeyStore(), clock: SystemClock())
        let kid = try await ring.activeKey().kid
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await ring.sign(
                        IDTokenClaims(
                            iss: "http://gatehouse.test", aud: "A", sub: "\(index)", iat: 1_800_000_000,
                            exp: 4_000_000_000,
                            jti: "j\(index)", nonce: nil))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens.count == 16)
        for token in tokens {
            let parts = token.split(separator: ".")
            #expect(parts.count == 3)
            let header = try #require(Data(base64Encoded: Self.padded(String(parts[0]))))
            let object = try #require(try JSONSerialization.jsonObject(with: header) as? [String: String])
            #expect(object == ["alg": "RS256", "kid": kid, "typ": "JWT"])
        }
    }

    static func padded(_ base64url: String) -> String {
        var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }
}
