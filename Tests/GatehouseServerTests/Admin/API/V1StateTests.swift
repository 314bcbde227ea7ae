import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/admin/api/v1/state` and `/scenario`: reset between tests, export, import, apply and check.
@Suite struct V1StateTests {
    static let scenarioYAML = """
        apps:
          shop: {id: "1960000000000009", name: Shop, secret: shop-secret-0123456789abcdef, redirect_uris: [https://shop.example/cb]}
        people:
          dara: {id: "100000000000901", email: dara@example.com, first_name: Dara, last_name: Doyle}
        grants:
          - {app: shop, person: dara, granted: [email]}
        tokens:
          - {app: shop, person: dara, value: EAAGsmallDaraToken0000000000000000001}
        """

    static func scenarioBody(_ yaml: String = scenarioYAML) -> String {
        JSONValue.object(["yaml": .string(yaml), "file": "shop.yaml"]).serialized()
    }

    @Test func resetToEmptyEndsEverything() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            _ = try await api.post("/id-tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            let keys = try await server.services.storage.signingKeys.all().map(\.kid)
            #expect(keys.count == 1)
            _ = try await api.post("/clock/advance", #"{"by":"1d"}"#)
            let reset = try await api.post("/state/reset", #"{"to":"empty"}"#)
            #expect(reset.status == .ok)
            #expect(reset.text == #"{"apps":0,"people":0,"tokens":0}"#)
            #expect(try await api.get("/apps").text == #"{"data":[],"next_cursor":null}"#)
            #expect(try await api.get("/people").text == #"{"data":[],"next_cursor":null}"#)
            #expect(server.clock.currentOffset == 0)
            let me = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.json["error"]?["code"]?.intValue == 190)
            // Signing keys survive, so the JWKS a client cached still verifies new id_tokens.
            #expect(try await server.services.storage.signingKeys.all().map(\.kid) == keys)
        }
    }

    @Test func resetToTheSeedAndToAScenario() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let seeded = try await api.post("/state/reset", #"{"to":"seed"}"#)
            #expect(seeded.status == .ok)
            #expect(seeded.json["apps"] == 1 && seeded.json["people"] == 3)
            #expect(
                seeded.json["seed"]?["users"]?.arrayValue?.compactMap { $0["email"]?.stringValue } == [
                    "alice@gatehouse.test", "bob@gatehouse.test", "carol@gatehouse.test",
                ])
            #expect(try await api.get("/apps").json["data"]?[0]?["name"] == "Gatehouse Demo")

            let body = JSONValue.object([
                "scenario": .object(["yaml": .string(Self.scenarioYAML), "file": "shop.yaml"])
            ]).serialized()
            let scenario = try await api.post("/state/reset", body)
            #expect(scenario.status == .ok)
            #expect(scenario.json["apps"] == 1 && scenario.json["people"] == 1 && scenario.json["tokens"] == 1)
            #expect(
                scenario.json["scenario"]?["people"] == [
                    ["key": "dara", "id": "100000000000901", "email": "dara@example.com"]
                ])
            let me = try await api.client.execute(
                uri: "/v27.0/me?fields=email&access_token=EAAGsmallDaraToken0000000000000000001", method: .get)
            #expect(me.json["email"] == "dara@example.com")
        }
    }

    @Test func refusedResetChangesNothing() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let bad = JSONValue.object(["scenario": .object(["yaml": "apps:\n  shop: {name: 7: x}\n"])]).serialized()
            let refused = try await api.post("/state/reset", bad)
            #expect(refused.status == .badRequest)
            #expect(refused.json["field"] == "scenario.yaml")
            #expect(
                try await api.post("/state/reset", #"{"to":"everything"}"#).text
                    == V1Problem.validation("to", "to must be empty or seed (or give a scenario)"))
            #expect(
                try await api.post("/state/reset", #"{"to":"empty","scenario":{"yaml":"apps: {}"}}"#).text
                    == V1Problem.validation("to", "give either to or scenario, not both"))
            #expect(
                try await api.post("/state/reset", #"{"scenario":{"yaml":"apps: {}","colour":1}}"#).text
                    == V1Problem.validation("scenario.colour", "unknown field scenario.colour"))
            #expect(try await server.services.storage.apps.list().count == 1)
            #expect(try await server.services.storage.users.list().count == 2)
        }
    }

    @Test func exportThenImportRestoresTheState() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            let exported = try await api.get("/state")
            #expect(exported.status == .ok)
            #expect(exported.json["format"] == "gatehouse-state")
            _ = try await api.post("/state/reset", #"{"to":"empty"}"#)
            let imported = try await api.put("/state", exported.text)
            #expect(imported.status == .ok)
            #expect(imported.text == #"{"apps":1,"people":2,"tokens":1}"#)
            #expect(try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
            let refused = try await api.put("/state", #"{"format":"something-else"}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.json["field"] == "body")
            #expect(try await server.services.storage.users.list().count == 2)
        }
    }

    @Test func scenarioCheckThenApply() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let check = try await api.post("/scenario?check=true", Self.scenarioBody())
            #expect(check.status == .ok)
            #expect(check.json["applied"] == false && check.json["in_sync"] == false)
            #expect(try await server.services.storage.apps.find(id: "1960000000000009") == nil)
            let applied = try await api.post("/scenario", Self.scenarioBody())
            #expect(applied.json["applied"] == true)
            #expect(try await api.get("/apps/1960000000000009").json["name"] == "Shop")
            let again = try await api.post("/scenario?check=1", Self.scenarioBody())
            #expect(again.json["in_sync"] == true)
            let bad = try await api.post("/scenario", Self.scenarioBody("people:\n  x: {email: nope}\n"))
            #expect(bad.status == .badRequest)
            #expect(bad.json["field"] == "yaml")
        }
    }
}
