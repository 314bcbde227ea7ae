import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The storage contract, run against every backend in `StorageBackends.all(fromTemplate:)`: apps, roles, users and
/// app-scoped ids. Other stores are in `StorageContractTests+*.swift`.
@Suite("Storage contract: apps and users")
struct StorageContractTests {
    // MARK: Apps

    @Test func appRoundTripsEveryField() async throws {
        try await withEachBackend { storage in
            let full = AppRecord(
                id: "123456789012345", secret: "s3cr3t", clientToken: "ctok", name: "Full App",
                redirectURIs: ["https://a.example/cb", "https://b.example/cb?x=1"], requireAppSecret: true,
                approvedPermissions: ["user_friends", "user_birthday"],
                deauthorizeCallbackURL: "https://a.example/deauth", dataDeletionCallbackURL: "https://a.example/delete",
                createdAt: TestTime.at(5), jsSDKDomains: ["https://a.example", "http://127.0.0.1:3000"]
            )
            let minimal = AppRecord(
                id: "223456789012345", secret: "x", clientToken: "y", name: "Minimal", redirectURIs: [],
                createdAt: TestTime.at(6)
            )
            try await storage.apps.create(full)
            try await storage.apps.create(minimal)
            #expect(try await storage.apps.find(id: full.id) == full)
            let readMinimal = try #require(try await storage.apps.find(id: minimal.id))
            #expect(readMinimal == minimal)
            #expect(readMinimal.deauthorizeCallbackURL == nil)
            #expect(readMinimal.dataDeletionCallbackURL == nil)
            #expect(readMinimal.requireAppSecret == false)
            #expect(readMinimal.approvedPermissions.isEmpty)
            #expect(readMinimal.jsSDKDomains.isEmpty)
            #expect(try await storage.apps.find(id: "999") == nil)
        }
    }

    @Test func appDatesAreKeptToTheSecond() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1", createdAt: Date(timeIntervalSince1970: 1_700_000_123.875)))
            let read = try #require(try await storage.apps.find(id: "1"))
            #expect(read.createdAt == Date(timeIntervalSince1970: 1_700_000_123))
        }
    }

    @Test func appListIsOldestFirstWithInsertionOrderForTies() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("30", createdAt: TestTime.at(100)))
            try await storage.apps.create(Fixture.app("20", createdAt: TestTime.at(50)))
            try await storage.apps.create(Fixture.app("10", createdAt: TestTime.at(100)))
            try await storage.apps.create(Fixture.app("40", createdAt: TestTime.at(100)))
            #expect(try await storage.apps.list().map(\.id) == ["20", "30", "10", "40"])
        }
    }

    @Test func appDuplicateIDConflicts() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1"))
            await #expect(throws: StorageError.conflict("id")) { try await storage.apps.create(Fixture.app("1")) }
        }
    }

    @Test func appUpdateReplacesFieldsAndRequiresTheRow() async throws {
        try await withEachBackend { storage in
            var app = Fixture.app("1")
            try await storage.apps.create(app)
            app.name = "Renamed"
            app.secret = "rotated"
            app.redirectURIs = ["https://new.example/cb"]
            app.requireAppSecret = true
            app.approvedPermissions = ["user_friends"]
            app.deauthorizeCallbackURL = "https://new.example/deauth"
            try await storage.apps.update(app)
            #expect(try await storage.apps.find(id: "1") == app)

            app.deauthorizeCallbackURL = nil
            try await storage.apps.update(app)
            #expect(try await storage.apps.find(id: "1")?.deauthorizeCallbackURL == nil)

            await #expect(throws: StorageError.notFound) { try await storage.apps.update(Fixture.app("2")) }
            #expect(try await storage.apps.list().map(\.id) == ["1"])
        }
    }

    // MARK: Roles

    @Test func rolesSetReplaceAndRemove() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1"))
            try await storage.apps.create(Fixture.app("2"))
            for id in ["u1", "u2"] { try await storage.users.create(Fixture.user(id)) }

            #expect(try await storage.apps.role(appID: "1", userID: "u1") == nil)
            try await storage.apps.setRole(appID: "1", userID: "u1", role: .developer)
            try await storage.apps.setRole(appID: "1", userID: "u2", role: .tester)
            #expect(try await storage.apps.role(appID: "1", userID: "u1") == .developer)
            #expect(try await storage.apps.role(appID: "2", userID: "u1") == nil)

            try await storage.apps.setRole(appID: "1", userID: "u1", role: .admin)
            #expect(try await storage.apps.role(appID: "1", userID: "u1") == .admin)
            let roles = try await storage.apps.roles(appID: "1")
            #expect(roles.map(\.userID) == ["u1", "u2"])
            #expect(roles.map(\.role) == [.admin, .tester])

            try await storage.apps.setRole(appID: "1", userID: "u1", role: nil)
            #expect(try await storage.apps.role(appID: "1", userID: "u1") == nil)
            #expect(try await storage.apps.roles(appID: "1").map(\.userID) == ["u2"])
            #expect(try await storage.apps.roles(appID: "2").isEmpty)
            // Removing a role nobody holds is fine.
            try await storage.apps.setRole(appID: "2", userID: "u2", role: nil)
        }
    }

    @Test func roleForUnknownUserIsNotFound() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1"))
            await #expect(throws: StorageError.notFound) {
                try await storage.apps.setRole(appID: "1", userID: "nobody", role: .admin)
            }
        }
    }

    // MARK: Users

    @Test func userRoundTripsEveryField() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("1"))
            let picture = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0x0D, 0x0A, 0x1A, 0xFF, 0x00])
            let full = UserRecord(
                id: "u-full", email: "Full.Person@Example.com", passwordHash: "$2b$12$abc", firstName: "Ada",
                middleName: "K", lastName: "Lovelace", birthday: "12/10/1815", gender: "female",
                link: "https://example.com/ada", location: Place(id: "110", name: "London, United Kingdom"),
                hometown: Place(id: "111", name: "Marylebone"), picture: picture, testUserOfAppID: "1",
                passwordChangedAt: TestTime.at(60), createdAt: TestTime.at(1)
            )
            let minimal = UserRecord(
                id: "u-min", email: "min@example.com", passwordHash: "h", firstName: "Min", lastName: "Imal",
                createdAt: TestTime.at(2)
            )
            try await storage.users.create(full)
            try await storage.users.create(minimal)
            let readFull = try #require(try await storage.users.find(id: "u-full"))
            #expect(readFull == full)
            #expect(readFull.picture == picture)
            #expect(readFull.email == "Full.Person@Example.com")
            let readMinimal = try #require(try await storage.users.find(id: "u-min"))
            #expect(readMinimal == minimal)
            #expect(readMinimal.middleName == nil && readMinimal.location == nil && readMinimal.picture == nil)
            #expect(readMinimal.passwordChangedAt == nil && readMinimal.testUserOfAppID == nil)
            #expect(try await storage.users.find(id: "nobody") == nil)
        }
    }

    @Test func emailLookupIsCaseInsensitiveAndUnique() async throws {
        try await withEachBackend { storage in
            try await storage.users.create(Fixture.user("1", email: "Mixed.Case@Example.COM"))
            #expect(try await storage.users.find(email: "mixed.case@example.com")?.id == "1")
            #expect(try await storage.users.find(email: "MIXED.CASE@EXAMPLE.COM")?.id == "1")
            #expect(try await storage.users.find(email: "other@example.com") == nil)
            await #expect(throws: StorageError.conflict("email")) {
                try await storage.users.create(Fixture.user("2", email: "mixed.case@example.com"))
            }
            #expect(try await storage.users.find(id: "2") == nil)
            await #expect(throws: StorageError.conflict("id")) {
                try await storage.users.create(Fixture.user("1", email: "fresh@example.com"))
            }
        }
    }

    @Test func userListAndTestUsersAreOldestFirst() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("A"))
            try await storage.apps.create(Fixture.app("B"))
            try await storage.users.create(Fixture.user("3", createdAt: TestTime.at(30), testUserOf: "A"))
            try await storage.users.create(Fixture.user("1", createdAt: TestTime.at(10)))
            try await storage.users.create(Fixture.user("2", createdAt: TestTime.at(30), testUserOf: "A"))
            try await storage.users.create(Fixture.user("4", createdAt: TestTime.at(5), testUserOf: "B"))
            #expect(try await storage.users.list().map(\.id) == ["4", "1", "3", "2"])
            #expect(try await storage.users.testUsers(appID: "A").map(\.id) == ["3", "2"])
            #expect(try await storage.users.testUsers(appID: "B").map(\.id) == ["4"])
            #expect(try await storage.users.testUsers(appID: "C").isEmpty)
        }
    }

    @Test func userUpdateReplacesFieldsAndChecksEmail() async throws {
        try await withEachBackend { storage in
            try await storage.users.create(Fixture.user("1", email: "one@example.com"))
            try await storage.users.create(Fixture.user("2", email: "two@example.com"))
            var user = try #require(try await storage.users.find(id: "1"))
            user.email = "New.One@Example.com"
            user.firstName = "Renamed"
            user.location = Place(id: "9", name: "Paris")
            user.picture = Data([1, 2, 3])
            user.passwordChangedAt = TestTime.at(99)
            try await storage.users.update(user)
            #expect(try await storage.users.find(id: "1") == user)
            #expect(try await storage.users.find(email: "new.one@example.com")?.id == "1")
            #expect(try await storage.users.find(email: "one@example.com") == nil)

            user.location = nil
            user.picture = nil
            try await storage.users.update(user)
            let cleared = try #require(try await storage.users.find(id: "1"))
            #expect(cleared.location == nil && cleared.picture == nil)

            user.email = "TWO@example.com"
            await #expect(throws: StorageError.conflict("email")) { try await storage.users.update(user) }
            await #expect(throws: StorageError.notFound) { try await storage.users.update(Fixture.user("404")) }
        }
    }

    // MARK: App-scoped ids

    @Test func scopedIDsAreStableDistinctAndResolvable() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("A"))
            try await storage.apps.create(Fixture.app("B"))
            try await storage.users.create(Fixture.user("1"))
            try await storage.users.create(Fixture.user("2"))

            let a1 = try await storage.users.scopedID(appID: "A", userID: "1")
            #expect(a1.count == 15)
            #expect(a1.allSatisfy { $0.isASCII && $0.isNumber })
            #expect(a1.first != "0")
            #expect(try await storage.users.scopedID(appID: "A", userID: "1") == a1)

            let b1 = try await storage.users.scopedID(appID: "B", userID: "1")
            let a2 = try await storage.users.scopedID(appID: "A", userID: "2")
            #expect(Set([a1, b1, a2]).count == 3)

            #expect(try await storage.users.userID(appID: "A", scopedID: a1) == "1")
            #expect(try await storage.users.userID(appID: "B", scopedID: b1) == "1")
            #expect(try await storage.users.userID(appID: "A", scopedID: a2) == "2")
            #expect(try await storage.users.userID(appID: "B", scopedID: a1) == nil)
            #expect(try await storage.users.userID(appID: "A", scopedID: "100000000000000") == nil)
        }
    }

    @Test func concurrentFirstUseAgreesOnOneScopedID() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app("A"))
            try await storage.users.create(Fixture.user("1"))
            async let x = storage.users.scopedID(appID: "A", userID: "1")
            async let y = storage.users.scopedID(appID: "A", userID: "1")
            async let z = storage.users.scopedID(appID: "A", userID: "1")
            let ids = try await [x, y, z]
            #expect(Set(ids).count == 1)
            #expect(try await storage.users.scopedID(appID: "A", userID: "1") == ids[0])
        }
    }
}
