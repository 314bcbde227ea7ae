import Foundation
import SQLKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport
import GatehouseProtocol

/// The profile fields the field table stores (`UserFieldValue.all`), on both backends: every one round-trips
/// through create, update and the joined caller reads, and `locale` (migration 17) starts empty.
@Suite struct ProfileFieldStorageTests {
    /// A person with every editable field set.
    static func filled(_ id: String, email: String? = nil) -> UserRecord {
        var user = Fixture.user(id, email: email)
        user.middleName = "Q"
        user.birthday = "01/02/1990"
        user.gender = "female"
        user.link = "https://example.com/q"
        user.location = Place(id: "p1", name: "Lisbon, Portugal")
        user.hometown = Place(id: "p2", name: "Porto, Portugal")
        user.quotes = "Less is more."
        user.profileText["locale"] = "pt_PT"
        return user
    }

    @Test func everyTableFieldRoundTrips() async throws {
        try await withEachBackend { storage in
            try await storage.users.create(Fixture.user("1"))
            #expect(try await storage.users.find(id: "1")?.profileText["locale"] == nil)
            let user = Self.filled("1")
            try await storage.users.update(user)
            #expect(try await storage.users.find(id: "1") == user)
            #expect(try await storage.users.list().first == user)
            try await storage.users.create(Self.filled("2", email: "two@example.com"))
            #expect(try await storage.users.find(email: "two@example.com")?.profileText["locale"] == "pt_PT")
        }
    }

    @Test func everyEditableFieldHasStorage() {
        for entry in UserFieldValue.editable {
            var user = Fixture.user("1")
            entry.load(into: &user) { column in column.hasSuffix("_id") ? "id-\(column)" : "value-\(column)" }
            #expect(entry.stored(user).allSatisfy { $0 != nil }, "\(entry.field.name) does not keep what it loads")
        }
        #expect(Set(SQLUserStore.columns).count == SQLUserStore.columns.count)
    }
}
