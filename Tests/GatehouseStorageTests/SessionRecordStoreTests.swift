import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The login dialog's one joined statement returns what the five separate reads return, for the asked app only.
@Suite("Session records in one statement")
struct SessionRecordStoreTests {
    @Test func theJoinedReadMatchesTheSeparateReads() async throws {
        try await withEachBackend { storage in
            let joined = storage.sessionRecords
            let app = Fixture.app("100000000000001"), other = Fixture.app("100000000000002")
            try await storage.apps.create(app)
            try await storage.apps.create(other)
            var person = Fixture.user("u1")
            person.picture = Data(repeating: 7, count: 32)
            try await storage.users.create(person)
            let session = Fixture.session("s1", user: person.id)
            try await storage.sessions.insert(session)

            // Logged in, but no grant and no role on the app yet.
            let bare = try #require(try await joined.sessionRecords(secretHash: session.secretHash, appID: app.id))
            #expect(bare.session == session)
            #expect(bare.user == (try await storage.users.find(id: person.id)), "the whole person, picture included")
            #expect(bare.grant == nil && bare.role == nil && bare.scopedID == nil)

            // A grant and a role on this app; another app's grant and role must not leak in.
            try await storage.grants.save(
                Fixture.grant(app: app.id, user: person.id, granted: ["public_profile", "email"]))
            try await storage.grants.save(
                Fixture.grant(app: other.id, user: person.id, granted: ["public_profile", "user_friends"]))
            try await storage.apps.setRole(appID: app.id, userID: person.id, role: .tester)
            try await storage.apps.setRole(appID: other.id, userID: person.id, role: .admin)
            let scopedID = try await storage.users.scopedID(appID: app.id, userID: person.id)
            let otherScopedID = try await storage.users.scopedID(appID: other.id, userID: person.id)
            let full = try #require(try await joined.sessionRecords(secretHash: session.secretHash, appID: app.id))
            #expect(full.grant == (try await storage.grants.find(appID: app.id, userID: person.id)))
            #expect(full.role == (try await storage.apps.role(appID: app.id, userID: person.id)))
            #expect(full.role == .tester)
            #expect(full.scopedID == scopedID)
            let onOther = try #require(try await joined.sessionRecords(secretHash: session.secretHash, appID: other.id))
            #expect(onOther.grant?.granted == ["public_profile", "user_friends"] && onOther.role == .admin)
            #expect(onOther.scopedID == otherScopedID && otherScopedID != scopedID)

            // An app nobody has a grant or role on, and a hash no session has.
            let none = try #require(
                try await joined.sessionRecords(secretHash: session.secretHash, appID: "100000000000003"))
            #expect(none.user?.id == person.id && none.grant == nil && none.role == nil && none.scopedID == nil)
            #expect(try await joined.sessionRecords(secretHash: "no-such-hash", appID: app.id) == nil)
        }
    }
}
