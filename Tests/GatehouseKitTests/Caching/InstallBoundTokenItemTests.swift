import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// The Keychain cache's rules (``InstallBoundTokenItem``) over an item and an installation id kept in memory,
/// standing in for the Keychain item and UserDefaults.
@Suite struct InstallBoundTokenItemTests {
    /// The stored item and id, and how often the item was deleted.
    final class Storage: @unchecked Sendable {
        var item: Data?
        var installID: String?
        var deletions = 0

        var rules: InstallBoundTokenItem {
            InstallBoundTokenItem(
                read: { self.item }, write: { self.item = $0 },
                delete: {
                    self.item = nil; self.deletions += 1
                },
                installID: { self.installID }, setInstallID: { self.installID = $0 })
        }
    }

    static let token = SessionKitFixtures.token()

    @Test func theFirstWriteGivesTheInstallationAnIdAndReadsBack() throws {
        let storage = Storage()
        #expect(storage.rules.entry() == nil)
        storage.rules.modify { $0.accessToken = Self.token }
        let id = try #require(storage.installID)
        #expect(UUID(uuidString: id) != nil)
        #expect(storage.rules.entry()?.accessToken == Self.token)
        #expect(storage.rules.entry()?.tokenUUID == id)
        // A second write keeps the id and the other fields.
        storage.rules.modify { $0.tokenInformation = ["appUser": "1"] }
        #expect(storage.installID == id)
        #expect(storage.rules.entry()?.accessToken == Self.token)
        #expect(storage.rules.entry()?.tokenInformation == ["appUser": "1"])
    }

    @Test func anItemFromAnEarlierInstallationIsDeletedNotRead() {
        let storage = Storage()
        storage.rules.modify { $0.accessToken = Self.token }
        // Reinstalled: UserDefaults is wiped, the Keychain item stays.
        storage.installID = nil
        #expect(storage.rules.entry() == nil)
        #expect(storage.item == nil)
        #expect(storage.deletions == 1)
    }

    @Test func aWriteAfterAReinstallStartsAFreshEntry() throws {
        let storage = Storage()
        storage.rules.modify {
            $0.accessToken = Self.token; $0.tokenInformation = ["appUser": "1"]
        }
        storage.installID = "00000000-0000-0000-0000-000000000001"
        storage.rules.modify { $0.tokenInformation = ["appUser": "2"] }
        let entry = try #require(storage.rules.entry())
        #expect(entry.tokenUUID == "00000000-0000-0000-0000-000000000001")
        #expect(entry.accessToken == nil)
        #expect(entry.tokenInformation == ["appUser": "2"])
    }

    @Test func aCorruptItemIsDeleted() {
        let storage = Storage()
        storage.installID = "00000000-0000-0000-0000-000000000001"
        storage.item = Data("not json".utf8)
        #expect(storage.rules.entry() == nil)
        #expect(storage.item == nil)
    }

    @Test func anEntryLeftEmptyIsDeleted() {
        let storage = Storage()
        storage.rules.modify { $0.accessToken = Self.token }
        storage.rules.modify { $0.accessToken = nil }
        #expect(storage.item == nil)
        #expect(storage.deletions == 1)
        #expect(storage.installID != nil)
    }
}
