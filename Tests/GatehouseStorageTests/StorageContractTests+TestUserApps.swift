import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Migration 20 (issue 41): a test user held by several apps, and friend requests between test users, on every
/// backend.
@Suite("Storage contract: test users in several apps and friend requests")
struct TestUserAppsStorageTests {
    @Test func anAssociatedTestUserIsListedAfterTheAppsOwnUntilDissociated() async throws {
        try await withEachBackend { storage in
            for id in ["1", "2"] { try await storage.apps.create(Fixture.app(id)) }
            try await storage.users.create(Fixture.user("10", createdAt: TestTime.at(1), testUserOf: "1"))
            try await storage.users.create(Fixture.user("20", createdAt: TestTime.at(2), testUserOf: "2"))
            try await storage.users.create(Fixture.user("30", createdAt: TestTime.at(3), testUserOf: "2"))

            #expect(try await storage.users.associate(testUserID: "10", appID: "2", at: TestTime.at(10)))
            #expect(try await !storage.users.associate(testUserID: "10", appID: "2", at: TestTime.at(11)))
            #expect(try await storage.users.testUsers(appID: "2").map(\.id) == ["20", "30", "10"])
            #expect(try await storage.users.testUsers(appID: "1").map(\.id) == ["10"])
            #expect(try await storage.users.associatedApps(testUserID: "10") == ["2"])
            #expect(try await storage.users.associatedApps(testUserID: "20").isEmpty)

            #expect(try await storage.users.dissociate(testUserID: "10", appID: "2"))
            #expect(try await !storage.users.dissociate(testUserID: "10", appID: "2"))
            #expect(try await storage.users.testUsers(appID: "2").map(\.id) == ["20", "30"])
            #expect(try await storage.users.associatedApps(testUserID: "10").isEmpty)
        }
    }

    @Test func associatingWithAMissingAppOrPersonIsNotFound() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1"))
            try await storage.users.create(Fixture.user("10", testUserOf: "1"))
            await #expect(throws: StorageError.notFound) {
                try await storage.users.associate(testUserID: "10", appID: "404", at: TestTime.base)
            }
            await #expect(throws: StorageError.notFound) {
                try await storage.users.associate(testUserID: "404", appID: "1", at: TestTime.base)
            }
        }
    }

    @Test func deletingThePersonOrTheAppEndsTheAssociation() async throws {
        try await withEachBackend { storage in
            for id in ["1", "2", "3"] { try await storage.apps.create(Fixture.app(id)) }
            try await storage.users.create(Fixture.user("10", testUserOf: "1"))
            try await storage.users.create(Fixture.user("20", testUserOf: "1"))
            _ = try await storage.users.associate(testUserID: "10", appID: "2", at: TestTime.base)
            _ = try await storage.users.associate(testUserID: "20", appID: "2", at: TestTime.base)
            _ = try await storage.users.associate(testUserID: "20", appID: "3", at: TestTime.base)
            try await storage.users.delete(id: "10")
            #expect(try await storage.users.testUsers(appID: "2").map(\.id) == ["20"])
            #expect(try await storage.deleteApp(id: "3"))
            #expect(try await storage.users.associatedApps(testUserID: "20") == ["2"])
        }
    }

    @Test func aFriendRequestAnsweredBackMakesOneFriendship() async throws {
        try await withEachBackend { storage in
            for id in ["10", "20", "30"] { try await storage.users.create(Fixture.user(id)) }
            #expect(try await !storage.friendships.request(from: "10", to: "20", at: TestTime.at(1)))
            #expect(try await !storage.friendships.request(from: "10", to: "20", at: TestTime.at(2)))
            #expect(try await !storage.friendships.request(from: "30", to: "20", at: TestTime.at(3)))
            #expect(try await storage.friendships.requests(to: "20") == ["10", "30"])
            #expect(try await !storage.friendships.areFriends("10", "20"))

            #expect(try await storage.friendships.request(from: "20", to: "10", at: TestTime.at(4)))
            #expect(try await storage.friendships.areFriends("10", "20"))
            #expect(try await storage.friendships.friends(of: "10") == ["20"])
            #expect(try await storage.friendships.requests(to: "20") == ["30"])
            #expect(try await storage.friendships.requests(to: "10").isEmpty)
            #expect(try await !storage.friendships.request(from: "10", to: "10", at: TestTime.at(5)))

            try await storage.users.delete(id: "30")
            #expect(try await storage.friendships.requests(to: "20").isEmpty)
        }
    }
}
