import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 5: `debug_token` inspects only tokens of the caller's own app, like Facebook; any other
/// app's token is refused with error 100 and nothing about it is revealed.
@Suite struct DebugTokenScopeTests {
    static let mismatch: JSONValue = .object([
        "error": .object([
            "message": "(#100) The App_id in the input_token did not match the Viewing App", "type": "OAuthException",
            "code": 100,
        ])
    ])

    @Test func anotherAppsTokenCannotInspectThisAppsUserToken() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        let victim = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        try await server.run { client in
            let r = try await client.execute(
                uri: "/debug_token?input_token=\(victim)&access_token=\(other.id)%7C\(other.secret)", method: .get)
            #expect(r.status == .badRequest)
            #expect(r.json == Self.mismatch)
            #expect(!r.text.contains(server.app.id))
        }
    }

    @Test func anotherAppsUserTokenCannotInspectThisAppsTokens() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        let victim = try await server.token(for: server.alice)
        let now = server.clock.now()
        try await server.services.storage.grants.save(
            GrantRecord(
                appID: other.id, userID: server.bob.id, granted: ["public_profile"], declined: [], createdAt: now,
                updatedAt: now, lastLoginAt: now))
        let attacker = try await server.services.tokens.mintUserToken(
            app: other, userID: server.bob.id, lifetime: 3600, origin: "test"
        ).0
        try await server.run { client in
            for input in [victim, server.appToken] {
                let r = try await client.execute(
                    uri:
                        "/debug_token?input_token=\(input.replacingOccurrences(of: "|", with: "%7C"))&access_token=\(attacker)",
                    method: .get)
                #expect(r.status == .badRequest)
                #expect(r.json == Self.mismatch)
            }
        }
    }

    @Test func anExpiredTokenOfAnotherAppIsNotDescribedEither() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        let victim = try await server.token(for: server.alice, lifetime: 10)
        server.clock.advance(by: 11)
        let aliceID = try await server.scopedID(server.alice)
        try await server.run { client in
            let r = try await client.execute(
                uri: "/debug_token?input_token=\(victim)&access_token=\(other.id)%7C\(other.secret)", method: .get)
            #expect(r.json == Self.mismatch)
            #expect(!r.text.contains(aliceID))
        }
    }
}
