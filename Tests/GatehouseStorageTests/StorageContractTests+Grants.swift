import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Contract tests for friendships, grants, user deletion and browser sessions, on every backend.
@Suite("Storage contract: friendships, grants, sessions, deletion")
struct StorageGrantContractTests {
    // MARK: Friendships

    @Test func friendshipsAreSymmetricIdempotentAndOrdered() async throws {
        try await withEachBackend { storage in
            for id in ["1", "2", "3", "4"] { try await storage.users.create(Fixture.user(id)) }
            try await storage.friendships.befriend("1", "3", at: TestTime.at(10))
            try await storage.friendships.befriend("2", "1", at: TestTime.at(20))
            try await storage.friendships.befriend("4", "1", at: TestTime.at(20))
            // Again, either way round: no duplicate and the original time (hence order) is kept.
            try await storage.friendships.befriend("3", "1", at: TestTime.at(30))
            try await storage.friendships.befriend("1", "3", at: TestTime.at(40))

            #expect(try await storage.friendships.friends(of: "1") == ["3", "2", "4"])
            #expect(try await storage.friendships.friends(of: "3") == ["1"])
            #expect(try await storage.friendships.friends(of: "2") == ["1"])
            #expect(try await storage.friendships.areFriends("1", "2"))
            #expect(try await storage.friendships.areFriends("2", "1"))
            #expect(try await storage.friendships.areFriends("2", "3") == false)

            try await storage.friendships.unfriend("3", "1")
            #expect(try await storage.friendships.areFriends("1", "3") == false)
            #expect(try await storage.friendships.friends(of: "1") == ["2", "4"])
            #expect(try await storage.friendships.friends(of: "3").isEmpty)
            try await storage.friendships.unfriend("3", "1")  // already gone: no error

            try await storage.friendships.befriend("1", "1", at: TestTime.base)
            #expect(try await storage.friendships.areFriends("1", "1") == false)
        }
    }

    // MARK: Grants

    @Test func grantRoundTripAndUpsert() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("A"))
            try await storage.users.create(Fixture.user("1"))
            #expect(try await storage.grants.find(appID: "A", userID: "1") == nil)

            let first = GrantRecord(
                appID: "A", userID: "1", granted: ["public_profile", "email"], declined: ["user_friends"],
                createdAt: TestTime.at(1), updatedAt: TestTime.at(2), lastLoginAt: TestTime.at(3)
            )
            try await storage.grants.save(first)
            #expect(try await storage.grants.find(appID: "A", userID: "1") == first)

            let second = GrantRecord(
                appID: "A", userID: "1", granted: ["public_profile", "email", "user_friends"], declined: [],
                createdAt: TestTime.at(1), updatedAt: TestTime.at(20), lastLoginAt: TestTime.at(30)
            )
            try await storage.grants.save(second)
            #expect(try await storage.grants.find(appID: "A", userID: "1") == second)
            #expect(try await storage.grants.grants(appID: "A") == [second])
        }
    }

    @Test func grantListsByUserAndByApp() async throws {
        try await withEachBackend { storage in
            for app in ["A", "B", "C"] { try await storage.apps.create(Fixture.app(app)) }
            for user in ["1", "2"] { try await storage.users.create(Fixture.user(user)) }
            try await storage.grants.save(Fixture.grant(app: "B", user: "1", at: TestTime.at(10)))
            try await storage.grants.save(Fixture.grant(app: "A", user: "1", at: TestTime.at(20)))
            try await storage.grants.save(Fixture.grant(app: "A", user: "2", granted: ["email"], at: TestTime.at(5)))

            #expect(try await storage.grants.grants(userID: "1").map(\.appID) == ["B", "A"])
            #expect(try await storage.grants.grants(userID: "2").map(\.granted) == [["email"]])
            #expect(try await storage.grants.grants(appID: "A").map(\.userID) == ["2", "1"])
            #expect(try await storage.grants.grants(appID: "C").isEmpty)

            try await storage.grants.delete(appID: "A", userID: "1")
            #expect(try await storage.grants.find(appID: "A", userID: "1") == nil)
            #expect(try await storage.grants.grants(userID: "1").map(\.appID) == ["B"])
            #expect(try await storage.grants.find(appID: "A", userID: "2") != nil)
        }
    }

    @Test func grantForUnknownAppIsNotFound() async throws {
        try await withEachBackend { storage in
            try await storage.users.create(Fixture.user("1"))
            await #expect(throws: StorageError.notFound) {
                try await storage.grants.save(Fixture.grant(app: "missing", user: "1"))
            }
        }
    }

    // MARK: Browser sessions

    @Test func sessionFindMarkAndDelete() async throws {
        try await withEachBackend { storage in
            for user in ["1", "2"] { try await storage.users.create(Fixture.user(user)) }
            let s1 = Fixture.session("s1", user: "1")
            try await storage.sessions.insert(s1)
            try await storage.sessions.insert(Fixture.session("s2", user: "1"))
            try await storage.sessions.insert(Fixture.session("s3", user: "2"))
            #expect(try await storage.sessions.find(secretHash: "secret-s1") == s1)
            #expect(try await storage.sessions.find(secretHash: "nope") == nil)

            try await storage.sessions.markAuthenticated(id: "s1", at: TestTime.at(500))
            var expected = s1
            expected.authenticatedAt = TestTime.at(500)
            #expect(try await storage.sessions.find(secretHash: "secret-s1") == expected)

            try await storage.sessions.delete(id: "s1")
            #expect(try await storage.sessions.find(secretHash: "secret-s1") == nil)
            #expect(try await storage.sessions.find(secretHash: "secret-s2") != nil)

            try await storage.sessions.deleteAll(userID: "1")
            #expect(try await storage.sessions.find(secretHash: "secret-s2") == nil)
            #expect(try await storage.sessions.find(secretHash: "secret-s3")?.userID == "2")

            await #expect(throws: StorageError.conflict("secret_hash")) {
                try await storage.sessions.insert(
                    BrowserSessionRecord(
                        id: "s9", secretHash: "secret-s3", userID: "1", createdAt: TestTime.base,
                        expiresAt: TestTime.base, authenticatedAt: TestTime.base
                    ))
            }
        }
    }

    // MARK: User deletion

    @Test func deletingAUserRemovesEverythingTheyOwn() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("A"))
            for user in ["1", "2"] { try await storage.users.create(Fixture.user(user)) }
            for user in ["1", "2"] {
                try await storage.grants.save(Fixture.grant(app: "A", user: user))
                try await storage.tokens.insert(Fixture.token("t\(user)", app: "A", user: user))
                try await storage.codes.insert(Fixture.code("c\(user)", app: "A", user: user))
                try await storage.sessions.insert(Fixture.session("s\(user)", user: user))
                try await storage.apps.setRole(appID: "A", userID: user, role: .tester)
            }
            try await storage.friendships.befriend("1", "2", at: TestTime.base)
            let scoped1 = try await storage.users.scopedID(appID: "A", userID: "1")
            let scoped2 = try await storage.users.scopedID(appID: "A", userID: "2")

            try await storage.users.delete(id: "1")

            #expect(try await storage.users.find(id: "1") == nil)
            #expect(try await storage.users.find(email: "user1@example.com") == nil)
            #expect(try await storage.grants.find(appID: "A", userID: "1") == nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t1") == nil)
            #expect(try await storage.codes.find(codeHash: "codehash-c1") == nil)
            #expect(try await storage.sessions.find(secretHash: "secret-s1") == nil)
            #expect(try await storage.apps.role(appID: "A", userID: "1") == nil)
            #expect(try await storage.friendships.friends(of: "2").isEmpty)
            #expect(try await storage.users.userID(appID: "A", scopedID: scoped1) == nil)

            // The other person is untouched.
            #expect(try await storage.users.find(id: "2") != nil)
            #expect(try await storage.grants.find(appID: "A", userID: "2") != nil)
            #expect(try await storage.tokens.find(tokenHash: "hash-t2") != nil)
            #expect(try await storage.codes.find(codeHash: "codehash-c2") != nil)
            #expect(try await storage.sessions.find(secretHash: "secret-s2") != nil)
            #expect(try await storage.apps.role(appID: "A", userID: "2") == .tester)
            #expect(try await storage.users.userID(appID: "A", scopedID: scoped2) == "2")

            // The email is free again; deleting a missing user is a no-op.
            try await storage.users.create(Fixture.user("1b", email: "USER1@example.com"))
            try await storage.users.delete(id: "1")
        }
    }
}
