import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 42 items 1 and 2: `/{app-id}/subscriptions` as Facebook documents it, and the verification request a
/// callback must answer before a subscription is kept.
@Suite struct AppSubscriptionEdgeTests {
    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, _ params: [(String, String)]
    ) async throws -> TestResponse {
        let encoded = FormEncoding.encode(params)
        if method == .post {
            return try await client.execute(
                uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: encoded))
        }
        return try await client.execute(uri: path + "?" + encoded, method: method)
    }

    static func error(_ message: String, code: Int) -> String {
        JSONValue.object(["error": ["message": .string(message), "type": "OAuthException", "code": .int(Int64(code))]])
            .serialized()
    }

    static func subscribe(
        _ server: TestServer, _ client: any TestClientProtocol, object: String = "user", fields: String = "email,name",
        url: String = "https://hooks.example/fb", token: String = "meatyhamhock"
    ) async throws -> TestResponse {
        try await call(
            client, .post, "/v21.0/\(server.app.id)/subscriptions",
            [
                ("object", object), ("callback_url", url), ("fields", fields), ("verify_token", token),
                ("access_token", server.appToken),
            ])
    }

    @Test func subscribeVerifiesTheCallbackThenListsTheSubscription() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            let created = try await Self.subscribe(server, client)
            #expect(created.status == .ok)
            #expect(created.text == #"{"success":true}"#)
            let check = try #require(receiver.verifications.first)
            #expect(check.url.hasPrefix("https://hooks.example/fb?"))
            #expect(check.query["hub.mode"] == "subscribe")
            #expect(check.query["hub.verify_token"] == "meatyhamhock")
            #expect(check.query["hub.challenge"]?.count == 10)

            let moreFields = try await Self.call(
                client, .post, "/v21.0/\(server.app.id)/subscriptions",
                [
                    ("object", "permissions"), ("callback_url", "https://hooks.example/fb"), ("verify_token", "t2"),
                    ("fields", #"["email","connected"]"#), ("access_token", server.appToken),
                ])
            #expect(moreFields.status == .ok)

            let listed = try await Self.call(
                client, .get, "/v21.0/\(server.app.id)/subscriptions", [("access_token", server.appToken)])
            #expect(listed.status == .ok)
            #expect(
                listed.text
                    == #"{"data":[{"object":"permissions","callback_url":"https://hooks.example/fb","active":true,"#
                    + #""fields":[{"name":"email","version":"v21.0"},{"name":"connected","version":"v21.0"}]},"#
                    + #"{"object":"user","callback_url":"https://hooks.example/fb","active":true,"#
                    + #""fields":[{"name":"email","version":"v21.0"},{"name":"name","version":"v21.0"}]}]}"#)
            // The verify token is never listed.
            #expect(!listed.text.contains("meatyhamhock"))
        }
    }

    @Test func badObjectsFieldsAndTokensGetFacebooksErrors() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            let page = try await Self.subscribe(server, client, object: "page")
            #expect(page.status == .badRequest)
            #expect(
                page.text
                    == Self.error(#"(#100) Param object must be one of {user, permissions} - got "page""#, code: 100))

            let field = try await Self.subscribe(server, client, fields: "email,shoe_size")
            #expect(field.status == .badRequest)
            #expect(field.text == Self.error(#"(#100) "shoe_size" is not a valid field for object "user""#, code: 100))

            let noURL = try await Self.call(
                client, .post, "/v21.0/\(server.app.id)/subscriptions",
                [("object", "user"), ("fields", "email"), ("access_token", server.appToken)])
            #expect(noURL.text == Self.error("(#100) The parameter callback_url is required", code: 100))

            let userToken = try await server.token(for: server.alice)
            let asUser = try await Self.call(
                client, .get, "/v21.0/\(server.app.id)/subscriptions", [("access_token", userToken)])
            #expect(asUser.status == .badRequest)
            #expect(asUser.text == Self.error("(#15) This method must be called with an app access_token.", code: 15))
            // Nothing was verified or kept.
            #expect(receiver.verifications.isEmpty)
            let listed = try await Self.call(
                client, .get, "/v21.0/\(server.app.id)/subscriptions", [("access_token", server.appToken)])
            #expect(listed.text == #"{"data":[]}"#)
        }
    }

    @Test func aCallbackThatDoesNotEchoTheChallengeIsRefused() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            receiver.verification = .answer(status: 200, body: "hello")
            let wrong = try await Self.subscribe(server, client)
            #expect(wrong.status == .badRequest)
            let challenge = try #require(receiver.verifications.last?.query["hub.challenge"])
            #expect(
                wrong.text
                    == Self.error(
                        #"(#2201) response does not match challenge, expected value="\#(challenge)", received="hello""#,
                        code: 2201))

            receiver.verification = .answer(status: 403, body: "")
            let forbidden = try await Self.subscribe(server, client)
            #expect(
                forbidden.text
                    == Self.error("(#2200) callback verification failed: Received HTTP code: 403", code: 2200))

            receiver.verification = .fail
            let silent = try await Self.subscribe(server, client)
            #expect(
                silent.text
                    == Self.error(
                        "(#2200) callback verification failed: the callback URL did not answer (URLError)", code: 2200))

            let listed = try await Self.call(
                client, .get, "/v21.0/\(server.app.id)/subscriptions", [("access_token", server.appToken)])
            #expect(listed.text == #"{"data":[]}"#)
            // Why, in the journal.
            let explanations = server.services.journal.entries().compactMap(\.explanation)
            #expect(explanations.contains("the callback did not echo hub.challenge as its whole body"))
            #expect(explanations.contains("the callback answered the verification request with HTTP 403, not 200"))
        }
    }

    @Test func deleteRemovesFieldsThenTheObject() async throws {
        let receiver = RecordingWebhookTransport()
        let server = try await TestServer.make(webhookTransport: receiver)
        try await server.run { client in
            #expect(try await Self.subscribe(server, client).status == .ok)
            let path = "/v21.0/\(server.app.id)/subscriptions"
            let some = try await Self.call(
                client, .delete, path, [("object", "user"), ("fields", "email"), ("access_token", server.appToken)])
            #expect(some.text == #"{"success":true}"#)
            let listed = try await Self.call(client, .get, path, [("access_token", server.appToken)])
            #expect(
                listed.text
                    == #"{"data":[{"object":"user","callback_url":"https://hooks.example/fb","active":true,"#
                    + #""fields":[{"name":"name","version":"v21.0"}]}]}"#)
            let all = try await Self.call(
                client, .delete, path, [("object", "user"), ("access_token", server.appToken)])
            #expect(all.text == #"{"success":true}"#)
            #expect(
                try await Self.call(client, .get, path, [("access_token", server.appToken)]).text == #"{"data":[]}"#)
            let bad = try await Self.call(
                client, .delete, path, [("object", "pages"), ("access_token", server.appToken)])
            #expect(
                bad.text
                    == Self.error(#"(#100) Param object must be one of {user, permissions} - got "pages""#, code: 100))
        }
    }
}
