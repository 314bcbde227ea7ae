import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The cache-miss path's one joined statement returns what the five separate reads return.
@Suite("Caller records in one statement")
struct CallerRecordStoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theJoinedReadMatchesTheSeparateReads() async throws {
        try await withEachBackend { storage in
            let joined = storage.callerRecords
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            var withPicture = try #require(try await storage.users.find(id: c.user.id))
            withPicture.picture = Data(repeating: 1, count: 64)
            try await storage.users.update(withPicture)

            let records = try #require(try await joined.callerRecords(tokenHash: c.token.tokenHash))
            #expect(records.token == (try await storage.tokens.find(tokenHash: c.token.tokenHash)))
            #expect(records.app == (try await storage.apps.find(id: c.app.id)))
            var expectedUser = withPicture
            expectedUser.picture = Data()
            #expect(records.user == expectedUser, "everything but the picture's bytes")
            #expect(records.grant == (try await storage.grants.find(appID: c.app.id, userID: c.user.id)))
            #expect(records.scopedID == (try await storage.users.scopedID(appID: c.app.id, userID: c.user.id)))

            withPicture.picture = nil
            try await storage.users.update(withPicture)
            #expect(try await joined.callerRecords(tokenHash: c.token.tokenHash)?.user?.picture == nil)
            try await storage.grants.delete(appID: c.app.id, userID: c.user.id)
            #expect(try await joined.callerRecords(tokenHash: c.token.tokenHash)?.grant == nil)
            #expect(try await joined.callerRecords(tokenHash: "no-such-hash") == nil)

            // A person without an app-scoped id yet, and an app token (no person at all).
            let d = Fixture.user("u-noscoped")
            try await storage.users.create(d)
            var token = Fixture.token("t-noscoped", app: c.app.id, user: d.id)
            token.tokenHash = "hash-noscoped"
            try await storage.tokens.insert(token)
            let bare = try #require(try await joined.callerRecords(tokenHash: "hash-noscoped"))
            #expect(bare.user?.id == d.id && bare.grant == nil && bare.scopedID == nil)
            try await storage.tokens.insert(Fixture.token("t-app", app: c.app.id, user: nil, kind: .app))
            let app = try #require(try await joined.callerRecords(tokenHash: "hash-t-app"))
            #expect(app.user == nil && app.app?.id == c.app.id && app.grant == nil)
        }
    }
}
