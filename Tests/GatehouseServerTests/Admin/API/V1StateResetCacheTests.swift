import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import GatehouseTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// `POST /admin/api/v1/state/reset` writes the new state in one transaction behind the caching decorators' backs:
/// nothing a node cached before it (callers, token lookups, apps, signing keys, injected errors) answers after it.
@Suite struct V1StateResetCacheTests {
    @Test(arguments: ["empty", "seed"])
    func aCachedReadBeforeAResetDoesNotSurviveIt(_ target: String) async throws {
        let server = try await TestServer.make()
        let storage = server.services.storage
        let callers = try #require(storage.callerCache)
        let apps = try #require((storage.apps as? InvalidatingAppStore)?.cache)
        let keys = try #require((storage.signingKeys as? CachingSigningKeyStore)?.cache)
        let injections = try #require((storage.emulator as? CachingEmulatorStore)?.injectionCache)
        try await waitUntil { callers.isEnabled && apps.isEnabled && keys.isEnabled && injections.isEnabled }
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            // Every cache holds something of the state before the reset.
            let me = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.json["name"]?.stringValue == server.alice.fullName)
            try await settle(callers, token, server.services)
            _ = try await api.post("/id-tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            try await storage.emulator.insertInjection(
                InjectedErrorRecord(
                    id: "before-reset", targetKind: .app, targetID: server.app.id, code: 4, subcode: nil,
                    remaining: nil, createdAt: server.clock.now()))
            #expect(try await storage.apps.find(id: server.app.id) != nil)
            #expect(try await storage.signingKeys.all().count == 1)
            #expect(try await storage.emulator.injections().map(\.id) == ["before-reset"])
            #expect(try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)) != nil)
            #expect(callers.contains(SecretHash.sha256Hex(token)) && apps.contains(server.app.id))
            #expect(keys.isCached && injections.isCached)

            let reset = try await api.post("/state/reset", #"{"to":"\#(target)"}"#)
            #expect(reset.status == .ok)
            #expect(callers.count == 0 && !apps.contains(server.app.id))
            #expect(!keys.isCached && !injections.isCached)
            // And what the reads answer now is the new state's (the token lookup, cached above, included).
            let after = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(after.json["error"]?["code"] == 190)
            #expect(try await storage.apps.find(id: server.app.id) == nil)
            #expect(try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)) == nil)
            #expect(try await storage.emulator.injections().isEmpty)
            #expect(try await storage.signingKeys.all().count == 1, "the signing keys are kept")
            let names = try await storage.apps.list().map(\.name)
            #expect(names == (target == "seed" ? ["Gatehouse Demo"] : []))
        }
    }
}
