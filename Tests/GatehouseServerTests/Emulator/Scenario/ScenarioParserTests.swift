import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import Testing

/// Scenario files: what they mean, and every mistake reported with its line and column.
@Suite struct ScenarioParserTests {
    @Test func readsTheShopExample() throws {
        let path = ScenarioFixtures.example("shop.yaml")
        let scenario = try ScenarioParser.reading(path: path).parse(try String(contentsOfFile: path, encoding: .utf8))
        let shop = try #require(scenario.apps.first)
        #expect(scenario.apps.count == 1)
        #expect(shop.key == "shop" && shop.id == "1960000000000001" && shop.name == "Corner Shop")
        #expect(shop.secret == "shop-secret-0123456789abcdef" && shop.clientToken == "shop-client-0123456789abcdef")
        #expect(shop.redirectURIs == ["https://shop.example/auth/callback", "fb1960000000000001://authorize/"])
        #expect(shop.approvedPermissions == ["email", "user_birthday"])
        #expect(shop.roles.map(\.person) == ["alice"] && shop.roles.map(\.role) == [.tester])
        #expect(shop.deauthorizeCallbackURL == "https://shop.example/facebook/deauthorize")
        #expect(shop.dataDeletionCallbackURL == "https://shop.example/facebook/data-deletion")
        #expect(shop.at == ScenarioLocation(line: 4, column: 3))
        #expect(scenario.people.map(\.key) == ["alice", "bob"])
        let alice = scenario.people[0]
        #expect(alice.id == "100000000000101" && alice.email == "alice@shop.test" && alice.password == "alice-shops")
        #expect(alice.birthday == "04/12/1990" && alice.gender == "female" && alice.location == "Lisbon, Portugal")
        #expect(alice.testUserOf == "shop" && alice.scopedIDs == ["shop": "900000000000101"])
        #expect(alice.picture == FileManager.default.contents(atPath: ScenarioFixtures.example("pictures/alice.png")))
        #expect(
            scenario.grants == [
                Scenario.Grant(
                    index: 0, app: "shop", person: "alice", at: ScenarioLocation(line: 44, column: 5),
                    granted: ["public_profile", "email"],
                    declined: ["user_birthday"], defaultAudience: nil)
            ])
        #expect(scenario.tokens.map(\.value) == ["EAAGshopAliceLongLivedToken0000000001"])
        #expect(scenario.tokens.first?.lifetime == 5_184_000)
    }

    @Test func leftOutIdsAreDerivedFromKeysAndStayTheSame() throws {
        let scenario = try ScenarioFixtures.parse(
            """
            apps:
              demo: {name: Demo}
            people:
              zoe: {email: zoe@example.com, first_name: Zoe, last_name: Zed}
            """)
        #expect(scenario.apps[0].id == ScenarioIDs.app(key: "demo"))
        #expect(scenario.apps[0].id.count == 16 && scenario.apps[0].id.allSatisfy(\.isNumber))
        #expect(scenario.people[0].id == ScenarioIDs.person(key: "zoe") && scenario.people[0].id.count == 15)
        #expect(scenario.people[0].password == "zoe-password")
        #expect(try ScenarioFixtures.parse("apps:\n  demo: {name: Demo}\n").apps[0].id == scenario.apps[0].id)
    }

    @Test func anUnknownKeyIsReportedWhereItIs() {
        let errors = ScenarioFixtures.errors(
            """
            apps:
              shop:
                name: Shop
                redirect_uri: https://shop.example/cb
            """)
        #expect(
            errors == [
                "test.yaml:4:5: apps.shop.redirect_uri: unknown key; expected one of approved_permissions, "
                    + "callbacks, client_token, id, js_sdk_domains, name, redirect_uris, require_app_secret, "
                    + "require_pkce, roles, secret, subscriptions"
            ])
    }

    @Test func wrongShapesAndValuesAreAllReportedInFileOrder() {
        let errors = ScenarioFixtures.errors(
            """
            apps:
              shop:
                name: Shop
                approved_permissions: [email, user_fiends]
                require_pkce: maybe
            people:
              alice:
                email: [alice@example.com]
                first_name: Alice
                last_name: Anders
                birthday: 1990-04-12
              bob:
                email: bob@example.com
                first_name: Bob
            """)
        #expect(
            errors == [
                "test.yaml:4:35: apps.shop.approved_permissions[1]: unknown permission \"user_fiends\"",
                "test.yaml:5:19: apps.shop.require_pkce: expected true or false",
                "test.yaml:8:12: people.alice.email: expected a string",
                "test.yaml:11:15: people.alice.birthday: birthday must be MM/DD/YYYY, MM/DD or YYYY",
                "test.yaml:12:3: people.bob: a person needs first_name and last_name",
            ])
    }

    @Test func referencesDuplicatesAndShortTokensAreCaught() {
        let errors = ScenarioFixtures.errors(
            """
            apps:
              shop: {id: "1960000000000001", name: Shop}
              other: {id: "1960000000000001", name: Other}
            people:
              alice: {email: alice@example.com, first_name: Alice, last_name: Anders}
            friendships:
              - [alice, carol]
            grants:
              - {app: shop, person: alice, granted: [email], declined: [email]}
            tokens:
              - {app: shop, person: alice, value: EAAGtooShort}
              - {app: shopp, person: alice, value: EAAGshopAliceLongLivedToken0000000001}
            errors:
              - {person: alice, error: 190/999}
            """)
        #expect(
            errors == [
                "test.yaml:3:3: apps.other: id 1960000000000001 is also app shop's",
                "test.yaml:7:5: friendships[0]: no person \"carol\" under people",
                "test.yaml:9:5: grants[0]: \"email\" is both granted and declined",
                "test.yaml:11:39: tokens[0].value: a token value needs 32 to 512 characters (this one has 12)",
                "test.yaml:12:5: tokens[1].app: no app \"shopp\" under apps",
                "test.yaml:14:28: errors[0].error: unknown error \"190/999\"; use one of 190/460, 190/458, 190/463,"
                    + " 4, 17, 2, 200, 190/459, 190/464, 190/467",
            ])
    }

    @Test func aTokenNeedsAGrantAndAnErrorExactlyOneTarget() {
        let errors = ScenarioFixtures.errors(
            """
            apps:
              shop: {name: Shop}
            people:
              alice: {email: alice@example.com, first_name: Alice, last_name: Anders}
            tokens:
              - app: shop
                person: alice
                value: EAAGshopAliceLongLivedToken0000000001
            errors:
              - {app: shop, person: alice, error: transient}
            """)
        #expect(
            errors == [
                "test.yaml:6:5: tokens[0]: alice has no grant for shop; add one under grants",
                "test.yaml:10:5: errors[0]: name exactly one of app, person or token",
            ])
    }

    @Test func aKeyWrittenTwiceIsAnError() {
        let errors = ScenarioFixtures.errors(
            """
            people:
              alice: {email: a@example.com, first_name: A, last_name: B}
              alice: {email: b@example.com, first_name: B, last_name: C}
            """)
        #expect(errors == ["test.yaml:2:3: alice appears more than once in this mapping (first here)"])
    }

    @Test func brokenYAMLReportsThePositionLibYAMLFound() {
        let errors = ScenarioFixtures.errors(
            """
            apps:
              shop:
                name: "Shop
                secret: x
            """)
        #expect(
            errors == [
                "test.yaml:4:14: not valid YAML: found unexpected end of stream, while scanning a quoted scalar that starts at 3:11"
            ])
    }

    @Test func aMissingPictureIsAnErrorAndANonPNGToo() {
        let errors = ScenarioFixtures.errors(
            """
            people:
              alice: {email: a@example.com, first_name: A, last_name: B, picture: missing.png}
              bob: {email: b@example.com, first_name: B, last_name: C, picture: notes.txt}
            """, files: ["notes.txt": Data("hello".utf8)])
        #expect(
            errors == [
                "test.yaml:2:71: people.alice.picture: cannot read missing.png (paths are relative to the scenario file)",
                "test.yaml:3:69: people.bob.picture: notes.txt is not a PNG file",
            ])
    }
}
