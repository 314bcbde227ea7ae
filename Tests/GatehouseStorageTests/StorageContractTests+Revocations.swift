import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Revocations return the tokens they revoked, on every backend: what `token.revoked` events are made from.
@Suite("Storage contract: revocations return what they revoked")
struct StorageRevocationContractTests {
    @Test func eachRevocationReturnsOnlyTheTokensItRevoked() async throws {
        try await withEachBackend { storage in
            try await StorageTokenContractTests.seed(storage)
            let tokens = storage.tokens
            let at = TestTime.at(10)
            // A person with no token: nothing.
            #expect(try await tokens.revokeAll(userID: "1", at: at).isEmpty)
            for token in [
                Fixture.token("t1", app: "A", user: "1", codeID: "c1"), Fixture.token("t2", app: "B", user: "1"),
                Fixture.token("t3", app: "A", user: "2", codeID: "c1"),
            ] {
                try await tokens.insert(token)
            }
            let family = try await tokens.revokeAll(codeID: "c1", at: at)
            #expect(Set(family.map(\.id)) == ["t1", "t3"])
            #expect(family.allSatisfy { $0.revokedAt == at })
            // Already revoked: not again, and the first time is kept.
            #expect(try await tokens.revoke(id: "t1", at: TestTime.at(20)).isEmpty)
            #expect(try await tokens.revokeAll(appID: "A", userID: "1", at: TestTime.at(20)).isEmpty)
            #expect(try await tokens.revokeAll(userID: "1", at: TestTime.at(20)).map(\.id) == ["t2"])
            #expect(try await tokens.revokeAll(userID: "1", at: TestTime.at(30)).isEmpty)
            #expect(try await tokens.revoke(id: "unknown", at: at).isEmpty)
        }
    }
}
