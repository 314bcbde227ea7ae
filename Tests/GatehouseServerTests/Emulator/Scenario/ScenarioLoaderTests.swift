import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Applying and checking scenarios: idempotent, reporting differences, and all-or-nothing for bad files.
@Suite struct ScenarioLoaderTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func body(_ yaml: String, file: String = "test.yaml") -> ByteBuffer {
        ByteBuffer(string: JSONValue.object(["yaml": .string(yaml), "file": .string(file)]).serialized())
    }

    static let small = """
        apps:
          shop: {id: "1960000000000009", name: Shop, secret: shop-secret-0123456789abcdef, redirect_uris: [https://shop.example/cb]}
        people:
          alice: {id: "100000000000901", email: alice@example.com, first_name: Alice, last_name: Anders}
        grants:
          - {app: shop, person: alice, granted: [email]}
        tokens:
          - {app: shop, person: alice, value: EAAGsmallAliceToken000000000000000001}
        """

    @Test func applyingTwiceChangesNothingTheSecondTime() async throws {
        let server = try await ScenarioServer.make()
        let scenario = try ScenarioFixtures.parse(Self.small)
        let first = try await server.loader.apply(scenario, file: "test.yaml")
        #expect(
            first.changes.map(\.description) == [
                "apps.shop: no app 1960000000000009 on the server",
                "people.alice: no person 100000000000901 on the server",
                "grants[0]: alice has no grant for shop on the server",
                "tokens[0]: no such token on the server",
            ])
        let second = try await server.loader.apply(scenario, file: "test.yaml")
        #expect(second.changes.isEmpty)
        #expect(try await server.loader.plan(scenario, file: "test.yaml").changes.isEmpty)
        try await server.close()
    }

    @Test func checkReportsWhatDiffersAndApplyRepairsIt() async throws {
        let server = try await ScenarioServer.make()
        let scenario = try ScenarioFixtures.parse(Self.small)
        try await server.loader.apply(scenario, file: "test.yaml")
        let storage = server.services.storage
        var app = try #require(try await storage.apps.find(id: "1960000000000009"))
        app.name = "Renamed"
        try await storage.apps.update(app)
        try await storage.grants.delete(appID: app.id, userID: "100000000000901")
        server.clock.advance(by: 61 * 86400)
        let plan = try await server.loader.plan(scenario, file: "test.yaml")
        #expect(plan.problems.isEmpty)
        #expect(
            plan.changes.map(\.description) == [
                "apps.shop: name is \"Renamed\" on the server, \"Shop\" in the file",
                "grants[0]: alice has no grant for shop on the server",
                "tokens[0]: expired on the server",
            ])
        try await server.loader.apply(scenario, file: "test.yaml")
        #expect(try await server.loader.plan(scenario, file: "test.yaml").changes.isEmpty)
        #expect(try await storage.apps.find(id: app.id)?.name == "Shop")
        try await server.close()
    }

    @Test func conflictsWithTheServerAreReportedWithTheirLineAndNothingIsWritten() async throws {
        let server = try await ScenarioServer.make()
        let taken = try await server.services.accounts.createUser(
            NewUser(email: "alice@example.com", password: "secret-1", firstName: "Al", lastName: "Ready"))
        let scenario = try ScenarioFixtures.parse(Self.small)
        await #expect(
            throws: ScenarioErrors([
                ScenarioError(
                    file: "test.yaml", location: ScenarioLocation(line: 4, column: 3), path: "people.alice.email",
                    message: "alice@example.com belongs to person \(taken.id) on the server")
            ])
        ) {
            try await server.loader.apply(scenario, file: "test.yaml")
        }
        #expect(try await server.services.storage.apps.list().isEmpty)
        #expect(try await server.services.storage.users.list().map(\.id) == [taken.id])
        try await server.close()
    }

    @Test func startupLoadsOnlyIntoAnEmptyOrAlreadyMatchingDatabase() async throws {
        let server = try await ScenarioServer.make()
        let scenario = try ScenarioFixtures.parse(Self.small)
        try await server.loader.loadAtStartup(scenario, file: "test.yaml")
        // A restart on the same data folder: nothing to do, no error.
        try await server.loader.loadAtStartup(scenario, file: "test.yaml")
        let other = try ScenarioFixtures.parse("apps:\n  quest: {name: Quest}\n")
        do {
            try await server.loader.loadAtStartup(other, file: "other.yaml")
            Issue.record("a database holding other data was loaded into")
        } catch let error as ScenarioLoader.NotEmptyError {
            #expect(
                error.description
                    == "the database already holds data that differs from other.yaml (1 difference(s), e.g. "
                    + "apps.quest: no app \(ScenarioIDs.app(key: "quest")) on the server); start with an empty "
                    + "--data-dir, or use `gatehouse scenario apply` against the running server"
            )
        }
        #expect(try await server.services.storage.apps.list().map(\.id) == ["1960000000000009"])
        try await server.close()
    }

    @Test func theAdminAPIAppliesChecksAndRefusesBadFilesWithoutChangingAnything() async throws {
        let server = try await ScenarioServer.make()
        try await server.run { client in
            let check = try await client.execute(
                uri: "/admin/api/v1/scenario?check=1", method: .post, headers: Self.json, body: Self.body(Self.small))
            #expect(check.status == .ok)
            #expect(check.json["applied"] == .bool(false) && check.json["in_sync"] == .bool(false))
            #expect(check.json["changes"]?.arrayValue?.count == 4)
            let applied = try await client.execute(
                uri: "/admin/api/v1/scenario", method: .post, headers: Self.json, body: Self.body(Self.small))
            #expect(applied.json["applied"] == .bool(true))
            #expect(
                applied.json["apps"] == [
                    [
                        "key": "shop", "id": "1960000000000009", "name": "Shop",
                        "secret": "shop-secret-0123456789abcdef",
                        "client_token": .string(
                            try await server.services.storage.apps.find(id: "1960000000000009")?.clientToken ?? ""),
                    ]
                ])
            #expect(
                applied.json["people"] == [["key": "alice", "id": "100000000000901", "email": "alice@example.com"]])
            let again = try await client.execute(
                uri: "/admin/api/v1/scenario?check=1", method: .post, headers: Self.json, body: Self.body(Self.small))
            #expect(
                again.text
                    == #"{"applied":false,"in_sync":true,"changes":[],"apps":[{"key":"shop","#
                    + #""id":"1960000000000009","name":"Shop","secret":"shop-secret-0123456789abcdef","#
                    + #""client_token":"\#(applied.json["apps"]?[0]?["client_token"]?.stringValue ?? "")"}],"#
                    + #""people":[{"key":"alice","id":"100000000000901","email":"alice@example.com"}]}"#
            )

            // Everything is fine until the file's last entry: nothing of it may land.
            let bad =
                Self.small.replacingOccurrences(of: "apps:\n", with: "apps:\n  extra: {name: Extra}\n")
                + "\nerrors:\n  - {app: shop, error: 190/461}\n"
            let refused = try await client.execute(
                uri: "/admin/api/v1/scenario", method: .post, headers: Self.json, body: Self.body(bad, file: "bad.yaml")
            )
            #expect(refused.status == .badRequest)
            #expect(
                refused.text
                    == V1Problem.validation(
                        "yaml",
                        "bad.yaml:11:24: errors[0].error: unknown error \"190/461\"; use one of 190/460, 190/458, "
                            + "190/463, 4, 17, 2, 200, 190/459, 190/464, 190/467"
                    ))
            #expect(try await server.services.storage.apps.list().map(\.id) == ["1960000000000009"])

            let form = try await client.execute(
                uri: "/admin/api/v1/scenario", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "yaml=x"))
            #expect(form.status == .unsupportedMediaType)
        }
    }

    @Test func aUsedUpInjectionIsReportedAndInjectedAgain() async throws {
        let server = try await ScenarioServer.make()
        try await server.apply(example: "friends.yaml")
        let yaml = try String(contentsOfFile: ScenarioFixtures.example("friends.yaml"), encoding: .utf8)
        let dan = "EAAGquestDanToken00000000000000000001"
        try await server.run { client in
            #expect(try await client.execute(uri: "/me?access_token=\(dan)", method: .get).status == .forbidden)
            #expect(try await client.execute(uri: "/me?access_token=\(dan)", method: .get).status == .ok)
            let check = try await client.execute(
                uri: "/admin/api/v1/scenario?check=1", method: .post, headers: Self.json,
                body: Self.body(yaml, file: "friends.yaml"))
            #expect(check.json["changes"] == ["errors[0]: 17 not injected on the server"])
            let applied = try await client.execute(
                uri: "/admin/api/v1/scenario", method: .post, headers: Self.json,
                body: Self.body(yaml, file: "friends.yaml"))
            #expect(applied.json["changes"] == ["errors[0]: 17 not injected on the server"])
            #expect(try await client.execute(uri: "/me?access_token=\(dan)", method: .get).status == .forbidden)
        }
    }

    @Test func productionModeRefusesClockOffsetsAndInjectedErrors() async throws {
        let server = try await ScenarioServer.make(mode: .production)
        let scenario = try ScenarioFixtures.parse(
            Self.small + "\nclock_offset: 2d\nerrors:\n  - {app: shop, error: transient}\n")
        let plan = try await server.loader.plan(scenario, file: "test.yaml")
        #expect(
            plan.problems.map(\.description) == [
                "test.yaml:9:1: clock_offset: the clock can only be moved in development mode",
                "test.yaml:11:5: errors[0]: errors can only be injected in development mode",
            ])
        try await server.close()
    }
}
