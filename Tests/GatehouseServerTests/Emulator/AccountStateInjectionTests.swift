import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes

/// Issue 30, item 4 (its injectable part): the account states the seeds' error handling branches on, 190/459
/// (checkpoint), 190/464 (unconfirmed) and 190/467 (logged out), can be injected like the others, by code or by
/// name, and answer Facebook's exact error.
@Suite struct AccountStateInjectionTests {
    static let cases: [(spec: String, body: String)] = [
        (
            "190/459",
            #"{"error":{"message":"Error validating access token: You cannot access the app till you log in to "#
                + #"www.facebook.com and follow the instructions given.","type":"OAuthException","code":190,"error_subcode":459}}"#
        ),
        (
            "unconfirmed",
            #"{"error":{"message":"Error validating access token: Sessions for the user  are not allowed because "#
                + #"the user is not a confirmed user.","type":"OAuthException","code":190,"error_subcode":464}}"#
        ),
        (
            "logged-out",
            #"{"error":{"message":"Error validating access token: The session is invalid because the user logged "#
                + #"out.","type":"OAuthException","code":190,"error_subcode":467}}"#
        ),
    ]

    @Test(arguments: cases.indices) func anInjectedAccountStateAnswersFacebooksError(index: Int) async throws {
        let (spec, body) = Self.cases[index]
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let injected = try await client.execute(
                uri: "/admin/api/v1/injections", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"target":"user","id":"\#(server.alice.id)","error":"\#(spec)","times":1}"#))
            #expect(injected.status == .created, "\(injected.text)")
            let refused = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(refused.status == .badRequest)
            #expect(refused.text == body)
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test func theCatalogueNamesThem() {
        #expect(InjectableError(spec: "checkpointed") == .checkpointed)
        #expect(InjectableError(spec: "190.464") == .unconfirmed)
        #expect(InjectableError(code: 190, subcode: 467) == .loggedOut)
        #expect(InjectableError.allCases.map(\.rawValue).suffix(3) == ["190/459", "190/464", "190/467"])
    }
}
