import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 42 item 1: `/{app-id}/subscriptions` answers the methods it lacks as every other Graph edge does
/// (`GraphRouteTests` has its routes): HEAD as its GET without the body, PUT and PATCH with Facebook's
/// "Unsupported … request" (code 100, subcode 33), OPTIONS as on every Graph path; never a page's 405 with `Allow`.
@Suite struct AppSubscriptionMethodTests {
    @Test func headMirrorsTheGetListing() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            #expect(try await AppSubscriptionEdgeTests.subscribe(server, client).status == .ok)
            let uri = "/v21.0/\(server.app.id)/subscriptions?access_token=\(server.appToken)"
            let (get, head) = try await HeadRequestTests.expectHeadMirrorsGet(client, uri)
            #expect(get.status == .ok)
            #expect(get.json["data"]?.arrayValue?.count == 1)
            #expect(head.headers[.contentType] == "application/json; charset=UTF-8")
            // A HEAD with a person's token answers the GET's (#15) refusal, without its body.
            let alice = try await server.token(for: server.alice)
            let (refused, _) = try await HeadRequestTests.expectHeadMirrorsGet(
                client, "/v21.0/\(server.app.id)/subscriptions?access_token=\(alice)")
            #expect(refused.status == .badRequest)
            // A HEAD subscribes nothing and verifies nothing: only the POST above called the receiver.
            #expect(receiver.verifications.count == 1)
        }
    }

    @Test func methodsTheEdgeLacksGetTheSameAnswerAsTheTestUsersEdge() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for method in [HTTPRequest.Method.put, .patch] {
                let subscriptions = try await client.execute(
                    uri: "/v21.0/\(server.app.id)/subscriptions?access_token=\(server.appToken)", method: method)
                let testUsers = try await client.execute(
                    uri: "/v21.0/\(server.app.id)/accounts/test-users?access_token=\(server.appToken)", method: method)
                #expect(subscriptions.status == .badRequest, "\(method)")
                #expect(subscriptions.status == testUsers.status, "\(method)")
                #expect(subscriptions.headers[.allow] == nil, "\(method)")
                #expect(subscriptions.text == testUsers.text, "\(method)")
                #expect(
                    subscriptions.json
                        == [
                            "error": [
                                "message": .string(
                                    GraphMethodParameterTests.unsupported(
                                        method.rawValue.lowercased(), server.app.id)),
                                "type": "GraphMethodException", "code": 100, "error_subcode": 33,
                            ]
                        ], "\(method)")
            }
            // OPTIONS is no Graph method: it answers as on every other Graph path (`/me` too), not with `Allow`.
            let uri = "/v21.0/\(server.app.id)/subscriptions?access_token=\(server.appToken)"
            let options = try await client.execute(uri: uri, method: .options)
            #expect(options.status == .notFound)
            #expect(options.headers[.allow] == nil)
            for other in ["/v21.0/\(server.app.id)/accounts/test-users", "/v21.0/me"] {
                let answer = try await client.execute(
                    uri: other + "?access_token=\(server.appToken)", method: .options)
                #expect(answer.status == options.status, "\(other)")
                #expect(answer.text == options.text, "\(other)")
            }
            // `method=put` on a GET is refused the same way (Facebook's override takes post, delete and get only).
            let overridden = try await client.execute(
                uri: "/v21.0/\(server.app.id)/subscriptions?method=put&access_token=\(server.appToken)", method: .get)
            #expect(overridden.json["error"]?["error_subcode"] == 33)
        }
    }
}
