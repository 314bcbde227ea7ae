import Foundation
import GatehouseProtocol
import GatehouseTesting
import Testing

/// `reset` and `applyScenario` on the in-process emulator.
@Suite struct EmulatorStateHelperTests {
    typealias Wire = GatehouseEmulatorTests

    static let scenario = """
        apps:
          shop:
            id: "1960000000000001"
            name: Corner Shop
            secret: shop-secret-0123456789abcdef
            redirect_uris: [https://shop.example/auth/callback]
            approved_permissions: [email]
        people:
          alice:
            id: "100000000000101"
            email: alice@shop.test
            password: alice-shops
            first_name: Alice
            last_name: Anders
            scoped_ids: {shop: "900000000000101"}
        grants:
          - {app: shop, person: alice, granted: [email]}
        tokens:
          - {app: shop, person: alice, value: EAAGshopAliceLongLivedToken0000000001}
        """

    @Test func aScenarioIsCheckedThenAppliedThenInSync() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let check = try await gatehouse.applyScenario(Self.scenario, file: "shop.yaml", checkOnly: true)
        #expect(!check.applied && !check.inSync && !check.changes.isEmpty)
        #expect(
            try await Wire.get(gatehouse, "v27.0/me", ["access_token": "EAAGshopAliceLongLivedToken0000000001"]).0
                == 400)
        let applied = try await gatehouse.applyScenario(Self.scenario, file: "shop.yaml")
        #expect(applied.applied)
        #expect(applied.apps["shop"]?.id == "1960000000000001")
        #expect(applied.apps["shop"]?.secret == "shop-secret-0123456789abcdef")
        #expect(applied.personIDs == ["alice": "100000000000101"])
        let (status, me) = try await Wire.getText(
            gatehouse, "v27.0/me", ["access_token": "EAAGshopAliceLongLivedToken0000000001"])
        #expect(status == 200)
        #expect(me == #"{"name":"Alice Anders","id":"900000000000101"}"#)
        let again = try await gatehouse.applyScenario(Self.scenario, file: "shop.yaml")
        #expect(!again.applied && again.inSync && again.changes.isEmpty)
        // A bad file is refused whole, with the problem at its place.
        let error = await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.applyScenario("people:\n  bob:\n    email: 12\n", file: "bad.yaml")
        }
        #expect(error?.status == 400)
        #expect(error?.detail.contains("bad.yaml:3:") == true)
        try await gatehouse.stop()
    }

    @Test func resetEmptiesTheServerOrRestoresTheSeed() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let alice = gatehouse.users[0]
        let login = try await gatehouse.logIn(alice)
        try await gatehouse.createApp(name: "Leftover")
        try await gatehouse.reset(to: .empty)
        #expect(try await Wire.get(gatehouse, "v27.0/me", ["access_token": login.accessToken]).0 == 400)
        let (_, apps) = try await Wire.get(gatehouse, "admin/api/v1/apps", [:])
        #expect(apps["data"] == [])
        let (_, people) = try await Wire.get(gatehouse, "admin/api/v1/people", [:])
        #expect(people["data"] == [])

        try await gatehouse.reset(to: .seed)
        #expect(gatehouse.app.name == "Gatehouse Demo")
        #expect(gatehouse.users.map(\.email) == ["alice@gatehouse.test", "bob@gatehouse.test", "carol@gatehouse.test"])
        let (_, seeded) = try await Wire.get(gatehouse, "admin/api/v1/apps", [:])
        #expect(seeded["data"]?.arrayValue?.count == 1)
        let again = try await gatehouse.logIn(gatehouse.users[0], permissions: ["email"])
        let (status, me) = try await Wire.get(
            gatehouse, "v27.0/me", ["fields": "email", "access_token": again.accessToken])
        #expect(status == 200)
        #expect(me["email"] == "alice@gatehouse.test")
        try await gatehouse.stop()
    }

    @Test func resetToAScenarioLoadsOnlyThatScenario() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let login = try await gatehouse.logIn(gatehouse.users[0])
        // A bad file changes nothing: the old token still works.
        await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.reset(toScenario: "apps: 12\n", file: "bad.yaml")
        }
        #expect(try await Wire.get(gatehouse, "v27.0/me", ["access_token": login.accessToken]).0 == 200)
        try await gatehouse.reset(toScenario: Self.scenario, file: "shop.yaml")
        #expect(try await Wire.get(gatehouse, "v27.0/me", ["access_token": login.accessToken]).0 == 400)
        let (status, me) = try await Wire.getText(
            gatehouse, "v27.0/me", ["access_token": "EAAGshopAliceLongLivedToken0000000001"])
        #expect(status == 200)
        #expect(me == #"{"name":"Alice Anders","id":"900000000000101"}"#)
        let (_, apps) = try await Wire.get(gatehouse, "admin/api/v1/apps", [:])
        #expect(apps["data"]?.arrayValue?.map { $0["id"] } == ["1960000000000001"])
        try await gatehouse.stop()
    }
}
