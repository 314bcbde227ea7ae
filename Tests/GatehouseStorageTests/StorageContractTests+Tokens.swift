import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Contract tests for authorization codes and access tokens, on every backend.
@Suite("Storage contract: codes and tokens")
struct StorageTokenContractTests {
    /// An app "A" and "B" and users "1" and "2".
    static func seed(_ storage: Storage) async throws {
        for app in ["A", "B"] { try await storage.apps.create(Fixture.app(app)) }
        for user in ["1", "2"] { try await storage.users.create(Fixture.user(user)) }
    }

    // MARK: Codes

    @Test func codeRoundTripsEveryField() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            let full = AuthCodeRecord(
                id: "c-full", codeHash: "h-full", appID: "A", userID: "1", redirectURI: "https://a.example/cb?x=1",
                codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "S256",
                nonce: "n-123", authType: "rerequest", authNonce: "an-456", scopes: ["public_profile", "email"],
                createdAt: TestTime.at(1), expiresAt: TestTime.at(601), usedAt: TestTime.at(2)
            )
            let minimal = Fixture.code("c-min", app: "A", user: "2")
            try await storage.codes.insert(full)
            try await storage.codes.insert(minimal)
            #expect(try await storage.codes.find(codeHash: "h-full") == full)
            let readMinimal = try #require(try await storage.codes.find(codeHash: "codehash-c-min"))
            #expect(readMinimal == minimal)
            #expect(readMinimal.usedAt == nil && readMinimal.codeChallenge == nil && readMinimal.scopes.isEmpty)
            #expect(try await storage.codes.find(codeHash: "unknown") == nil)
            await #expect(throws: StorageError.conflict("code_hash")) {
                var clash = minimal
                clash.id = "c-other"
                try await storage.codes.insert(clash)
            }
        }
    }

    @Test func codeIsConsumedExactlyOnce() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            try await storage.codes.insert(Fixture.code("c1", app: "A", user: "1"))
            #expect(try await storage.codes.consume(id: "c1", at: TestTime.at(5)))
            #expect(try await storage.codes.consume(id: "c1", at: TestTime.at(6)) == false)
            #expect(try await storage.codes.find(codeHash: "codehash-c1")?.usedAt == TestTime.at(5))
            #expect(try await storage.codes.consume(id: "unknown", at: TestTime.at(5)) == false)
        }
    }

    @Test func concurrentConsumesHaveOneWinner() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            try await storage.codes.insert(Fixture.code("c1", app: "A", user: "1"))
            async let first = storage.codes.consume(id: "c1", at: TestTime.at(5))
            async let second = storage.codes.consume(id: "c1", at: TestTime.at(5))
            let results = try await [first, second]
            #expect(results.filter { $0 }.count == 1)

            try await storage.codes.insert(Fixture.code("c2", app: "A", user: "1"))
            let many = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 { group.addTask { try await storage.codes.consume(id: "c2", at: TestTime.at(7)) } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(many.count == 16)
            #expect(many.filter { $0 }.count == 1)
        }
    }

    // MARK: Tokens

    @Test func tokenRoundTripsEveryField() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            let user = TokenRecord(
                id: "t-user", tokenHash: "th-user", kind: .user, appID: "A", userID: "1", issuedAt: TestTime.at(1),
                expiresAt: TestTime.at(5_184_000), revokedAt: TestTime.at(9), codeID: "c1", authType: "reauthenticate",
                authNonce: "nonce", origin: "code"
            )
            let app = TokenRecord(
                id: "t-app", tokenHash: "th-app", kind: .app, appID: "A", userID: nil, issuedAt: TestTime.at(2),
                expiresAt: nil
            )
            try await storage.tokens.insert(user)
            try await storage.tokens.insert(app)
            #expect(try await storage.tokens.find(tokenHash: "th-user") == user)
            let readApp = try #require(try await storage.tokens.find(tokenHash: "th-app"))
            #expect(readApp == app)
            #expect(readApp.userID == nil && readApp.expiresAt == nil && readApp.origin == nil && readApp.kind == .app)
            #expect(try await storage.tokens.find(tokenHash: "nope") == nil)
            await #expect(throws: StorageError.conflict("token_hash")) {
                try await storage.tokens.insert(Fixture.token("t-other", app: "A", user: "1").with(hash: "th-app"))
            }
            await #expect(throws: StorageError.notFound) {
                try await storage.tokens.insert(Fixture.token("t-orphan", app: "missing", user: nil))
            }
        }
    }

    @Test func setExpiryAndRevoke() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            try await storage.tokens.insert(Fixture.token("t1", app: "A", user: "1"))
            try await storage.tokens.setExpiry(id: "t1", expiresAt: TestTime.at(7200))
            #expect(try await storage.tokens.find(tokenHash: "hash-t1")?.expiresAt == TestTime.at(7200))
            try await storage.tokens.setExpiry(id: "t1", expiresAt: nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t1")?.expiresAt == nil)

            try await storage.tokens.revoke(id: "t1", at: TestTime.at(10))
            #expect(try await storage.tokens.find(tokenHash: "hash-t1")?.revokedAt == TestTime.at(10))
            try await storage.tokens.revoke(id: "t1", at: TestTime.at(20))
            #expect(try await storage.tokens.find(tokenHash: "hash-t1")?.revokedAt == TestTime.at(10))
        }
    }

    @Test func revokeAllVariantsTouchOnlyTheirTokens() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            let tokens = [
                Fixture.token("a1-1", app: "A", user: "1", codeID: "code-x"),
                Fixture.token("a1-2", app: "A", user: "1"),
                Fixture.token("b1", app: "B", user: "1", codeID: "code-x"),
                Fixture.token("a2", app: "A", user: "2", codeID: "code-y"),
                Fixture.token("b2", app: "B", user: "2"),
                Fixture.token("app-A", app: "A", user: nil, expiresAt: nil, kind: .app),
                Fixture.token("old", app: "A", user: "1", revokedAt: TestTime.at(1)),
            ]
            for token in tokens { try await storage.tokens.insert(token) }
            func revokedAt(_ id: String) async throws -> Date? {
                try await storage.tokens.find(tokenHash: "hash-\(id)")?.revokedAt
            }

            try await storage.tokens.revokeAll(appID: "A", userID: "1", at: TestTime.at(100))
            #expect(try await revokedAt("a1-1") == TestTime.at(100))
            #expect(try await revokedAt("a1-2") == TestTime.at(100))
            #expect(try await revokedAt("old") == TestTime.at(1))
            for id in ["b1", "a2", "b2", "app-A"] { #expect(try await revokedAt(id) == nil) }

            try await storage.tokens.revokeAll(codeID: "code-x", at: TestTime.at(200))
            #expect(try await revokedAt("b1") == TestTime.at(200))
            #expect(try await revokedAt("a1-1") == TestTime.at(100))
            for id in ["a2", "b2", "app-A"] { #expect(try await revokedAt(id) == nil) }

            try await storage.tokens.revokeAll(userID: "2", at: TestTime.at(300))
            #expect(try await revokedAt("a2") == TestTime.at(300))
            #expect(try await revokedAt("b2") == TestTime.at(300))
            #expect(try await revokedAt("app-A") == nil)
        }
    }

    @Test func liveFiltersRevokedExpiredAndByOwner() async throws {
        try await withEachBackend { storage in
            try await Self.seed(storage)
            let now = TestTime.at(1000)
            let tokens = [
                Fixture.token("a1-old", app: "A", user: "1", issuedAt: TestTime.at(10), expiresAt: TestTime.at(5000)),
                Fixture.token("a1-new", app: "A", user: "1", issuedAt: TestTime.at(20), expiresAt: TestTime.at(5000)),
                Fixture.token("a1-tie", app: "A", user: "1", issuedAt: TestTime.at(20), expiresAt: TestTime.at(5000)),
                Fixture.token(
                    "a1-expired", app: "A", user: "1", issuedAt: TestTime.at(30), expiresAt: TestTime.at(999)),
                Fixture.token("a1-edge", app: "A", user: "1", issuedAt: TestTime.at(30), expiresAt: now),
                Fixture.token("a1-revoked", app: "A", user: "1", issuedAt: TestTime.at(40), revokedAt: TestTime.at(50)),
                Fixture.token("b1", app: "B", user: "1", issuedAt: TestTime.at(15), expiresAt: TestTime.at(5000)),
                Fixture.token("a2", app: "A", user: "2", issuedAt: TestTime.at(25), expiresAt: TestTime.at(5000)),
                Fixture.token("app-A", app: "A", user: nil, issuedAt: TestTime.at(5), expiresAt: nil, kind: .app),
            ]
            for token in tokens { try await storage.tokens.insert(token) }

            #expect(
                try await storage.tokens.live(appID: "A", userID: "1", now: now).map(\.id) == [
                    "a1-tie", "a1-new", "a1-old",
                ])
            #expect(
                try await storage.tokens.live(appID: nil, userID: "1", now: now).map(\.id) == [
                    "a1-tie", "a1-new", "b1", "a1-old",
                ])
            #expect(
                try await storage.tokens.live(appID: "A", userID: nil, now: now).map(\.id) == [
                    "a2", "a1-tie", "a1-new", "a1-old", "app-A",
                ])
            #expect(try await storage.tokens.live(appID: nil, userID: nil, now: now).count == 6)
            #expect(try await storage.tokens.live(appID: "B", userID: "2", now: now).isEmpty)
            // Just before the edge token expires it is live.
            #expect(
                try await storage.tokens.live(appID: "A", userID: "1", now: TestTime.at(999)).map(\.id).contains(
                    "a1-edge"))
            // Full records come back, not just ids.
            #expect(try await storage.tokens.live(appID: "B", userID: "1", now: now) == [tokens[6]])
        }
    }
}

fileprivate extension TokenRecord {
    func with(hash: String) -> TokenRecord {
        var copy = self
        copy.tokenHash = hash
        return copy
    }
}
