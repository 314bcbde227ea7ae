import Foundation
import GatehouseCore
import GatehouseProtocol
import Testing

/// Issue 31, item 1: a profile field is one entry in one table. `UserField.all` (GatehouseProtocol) names each
/// field, its permission, FQL column and id_token claim; `UserFieldValue.all` (GatehouseCore) says how its value
/// is stored and read. The places that used to spell the names read the tables now, and a name spelled as a
/// literal in any of them fails here.
@Suite struct UserFieldTableTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files that read the tables instead of spelling field names (each must mention `UserField`).
    static let readers = [
        "Sources/GatehouseServer/Graph/UserNode.swift",
        "Sources/GatehouseServer/Graph/UserEndpoints.swift",
        "Sources/GatehouseServer/Graph/FQLEndpoint.swift",
        "Sources/GatehouseServer/OIDC/DiscoveryController.swift",
        "Sources/GatehouseServer/OIDC/IDTokenIssuer.swift",
        "Sources/GatehouseCore/OIDC/IDTokenClaims.swift",
        "Sources/GatehouseStorage/SQL/SQLUserStore.swift",
        "Sources/GatehouseKit/Core/Permission.swift",
        "Sources/GatehouseKit/OIDC/AuthenticationTokenClaims.swift",
        "Sources/GatehouseKit/Profile/Profile+Loading.swift",
        "Sources/GatehouseServer/Services/AccountService.swift",
        "Sources/GatehouseCLI/ProfileOptions.swift",
        "Sources/GatehouseCLI/Store.swift",
        "Sources/GatehouseServer/Emulator/Scenario/ScenarioParser+Entities.swift",
        "Sources/GatehouseServer/Emulator/Scenario/ScenarioPlan+Entities.swift",
    ]

    /// Files that offer the permissions behind the fields (`Permission.profilePermissions`) and must spell none.
    static let permissionReaders = [
        "Sources/GatehouseServer/Web/Dialog/DevIdentityPicker.swift"
    ]

    /// Folders whose every Swift file must spell no field name, claim or permission (issue 31, item 6): the
    /// id_token on both sides, the SDK's profile and the shared vocabulary.
    static let coveredFolders = [
        "Sources/GatehouseProtocol",
        "Sources/GatehouseServer/OIDC",
        "Sources/GatehouseCore/OIDC",
        "Sources/GatehouseKit/OIDC",
        "Sources/GatehouseKit/Profile",
        // The people's profile as the CLI, scenarios and console read and write it.
        "Sources/GatehouseCLI",
        "Sources/GatehouseServer/Emulator/Scenario",
        "Sources/GatehouseServer/Admin/Console",
    ]

    /// Files in the covered places that must spell the names: the tables themselves. Tests, docs and migrations
    /// spell them too, but are outside the covered places.
    static let allowlist: Set<String> = [
        "Sources/GatehouseProtocol/UserField.swift",
        "Sources/GatehouseProtocol/Permission.swift",
        "Sources/GatehouseProtocol/Permission+Retired.swift",
    ]

    /// Permission names the covered places must take from `Permission` (GatehouseProtocol) rather than spell.
    /// `email` is left out: it is also a field and an account column, spelled for those.
    static let permissionSpellings: Set<String> = Set(Permission.catalogue.map(\.name)).subtracting(["email"])

    /// The readers, and every Swift file under the covered folders, less the allowlist.
    static func coveredFiles() throws -> [String] {
        var files = Set(readers + permissionReaders)
        for folder in coveredFolders {
            let url = root.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: url.path))
            for case let path as String in enumerator where path.hasSuffix(".swift") {
                files.insert(folder + "/" + path)
            }
        }
        return files.subtracting(allowlist).sorted()
    }

    /// Every spelling the tables own: Graph names of profile data, FQL columns, claims and storage columns.
    /// Names that are also ordinary words in these files (`id`, `name`, `email`, `picture`, …) are left out:
    /// they are spelled for other things too (a place's `name`, an account's `email` column).
    static var spellings: Set<String> {
        let common: Set<String> = [
            "id", "name", "email", "picture", "link", "friends", "permissions", "first_name", "last_name",
        ]
        var out = Set<String>()
        for field in UserField.all {
            out.insert(field.name)
            if let fql = field.fqlColumn { out.insert(fql) }
            if let claim = field.idTokenClaim { out.insert(claim) }
        }
        for entry in UserFieldValue.all { out.formUnion(entry.columns) }
        return out.subtracting(common)
    }

    @Test func theReadersSpellNoFieldOfTheirOwn() throws {
        let files = try Self.coveredFiles()
        #expect(files.count > Self.readers.count)
        for file in files {
            let source = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            if Self.readers.contains(file) {
                #expect(source.contains("UserField"), "\(file) does not read the field table")
            }
            // Code only: a comment may show the wire form (`{"scope":"pages_show_list",…}`) as documentation.
            let text = source.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .joined(separator: "\n")
            for name in Self.spellings.union(Self.permissionSpellings).sorted() {
                #expect(!text.contains("\"\(name)\""), "\(file) spells \"\(name)\" itself")
            }
        }
    }

    /// The check above must see a spelled name: a reader that spelled `"hometown"` or `"user_hometown"` fails.
    @Test func theSpellingsIncludeTheFieldsClaimsAndPermissions() {
        for name in [
            "hometown", "quotes", "locale", "birthday", "hometown_location", "user_hometown", "given_name", "user_link",
            "openid",
        ] {
            #expect(Self.spellings.union(Self.permissionSpellings).contains(name), "\(name)")
        }
    }

    @Test func theTwoTablesListTheSameFieldsInTheSameOrder() {
        #expect(UserFieldValue.all.map(\.field) == UserField.all)
        #expect(Set(UserField.all.map(\.name)).count == UserField.all.count)
        let fql = UserField.all.compactMap(\.fqlColumn)
        #expect(Set(fql).count == fql.count)
        let claims = UserField.all.compactMap(\.idTokenClaim)
        #expect(Set(claims).count == claims.count)
        #expect(Set(UserFieldValue.storedColumns).count == UserFieldValue.storedColumns.count)
    }

    @Test func localeIsFacebooksPublicProfileField() throws {
        let locale = try #require(UserField.named("locale"))
        #expect(locale.permission == "public_profile")
        #expect(locale.fqlColumn == "locale")
        // Limited Login's id_token has no locale claim.
        #expect(locale.idTokenClaim == nil)
        var user = UserRecord(
            id: "1", email: "a@example.com", passwordHash: "x", firstName: "A", lastName: "B",
            createdAt: Date(timeIntervalSince1970: 0))
        let entry = try #require(UserFieldValue.named("locale"))
        let context = {
            UserFieldContext(
                user: user, scopedID: "9", appID: "1", baseURL: "http://gatehouse.test",
                now: Date(timeIntervalSince1970: 0))
        }
        // Facebook answers en_US for a person who never set a locale (issue 41).
        #expect(entry.read(context()) == .string(UserFieldValue.defaultLocale))
        #expect(UserFieldValue.defaultLocale == "en_US")
        user.profileText["locale"] = "pt_BR"
        #expect(entry.read(context()) == .string("pt_BR"))
        #expect(entry.columns == ["locale"])
    }

    @Test func theDerivedFieldsReadTheRecord() throws {
        let user = UserRecord(
            id: "1", email: "a@example.com", passwordHash: "x", firstName: "Ann", middleName: "B", lastName: "Cole",
            birthday: "01/02/1990",
            hometown: Place(id: "7", name: "Porto"), createdAt: Date(timeIntervalSince1970: 0))
        let context = UserFieldContext(
            user: user, scopedID: "9", appID: "42", baseURL: "http://gatehouse.test",
            now: Date(timeIntervalSince1970: 1_800_000_000))
        func read(_ field: UserField) -> JSONValue? { UserFieldValue.named(field.name)?.read(context) }
        #expect(read(.id) == .string("9"))
        #expect(read(.name) == .string("Ann B Cole"))
        #expect(read(.nameFormat) == .string("{first} {middle} {last}"))
        #expect(read(.link) == .string("http://gatehouse.test/profile/42/9"))
        #expect(read(.hometown) == ["id": "7", "name": "Porto"])
        #expect(read(.ageRange) == ["min": 21])
        #expect(read(.quotes) == .string(""))
        #expect(read(.picture) == nil)
    }
}
