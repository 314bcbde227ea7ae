import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 41 item 1: `HEAD` wherever `GET` is answered (RFC 9110 §9.3.2), with the `GET`'s status and headers,
/// `Content-Length` and `ETag` included, no body, and nothing done that the `GET` does not do.
@Suite struct HeadRequestTests {
    /// Headers whose value is made afresh for each answer, so two `GET`s differ in them too.
    static let perAnswer: Set<HTTPField.Name> = [.setCookie, .date]

    /// Sends `GET` then `HEAD` to `uri` and checks that the `HEAD` answer is the `GET`'s without its body.
    @discardableResult
    static func expectHeadMirrorsGet(
        _ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (get: TestResponse, head: TestResponse) {
        let get = try await client.execute(uri: uri, method: .get, headers: headers)
        let head = try await client.execute(uri: uri, method: .head, headers: headers)
        #expect(head.status == get.status, sourceLocation: sourceLocation)
        #expect(head.body.readableBytes == 0, sourceLocation: sourceLocation)
        #expect(head.headers[.contentLength] == String(get.body.readableBytes), sourceLocation: sourceLocation)
        #expect(
            fields(head.headers) == fields(get.headers), "HEAD \(uri) has the GET's headers",
            sourceLocation: sourceLocation)
        return (get, head)
    }

    /// Every header but the per-answer ones, as name and value, in order.
    static func fields(_ headers: HTTPFields) -> [String] {
        headers.filter { !perAnswer.contains($0.name) }.map { "\($0.name.canonicalName): \($0.value)" }
    }

    @Test func aGraphCallWithAValidTokenAnswers200WithTheGetsHeaders() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let (get, head) = try await Self.expectHeadMirrorsGet(client, "/v21.0/me?access_token=\(token)")
            #expect(get.status == .ok)
            #expect(head.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(head.headers[HTTPField.Name("facebook-api-version")!] == "v21.0")
            // An invalid token answers the GET's 190 the same way: status and headers, no body.
            let (refused, _) = try await Self.expectHeadMirrorsGet(client, "/v21.0/me?access_token=nope")
            #expect(refused.status == .badRequest)
        }
    }

    @Test func theDialogALoginPageAndTheSettingsPageAnswerHead() async throws {
        let server = try await TestServer.make()
        let dialog =
            "/v21.0/dialog/oauth?client_id=\(server.app.id)&redirect_uri="
            + FormEncoding.escape(TestServer.redirectURI) + "&state=s"
        try await server.run { client in
            let (get, _) = try await Self.expectHeadMirrorsGet(client, dialog)
            #expect(get.status == .ok)
            #expect(get.headers[.contentType] == "text/html; charset=utf-8")
            #expect(try await Self.expectHeadMirrorsGet(client, "/login").get.status == .ok)
            // Not logged in: the GET's redirect, Location and all.
            let (settings, head) = try await Self.expectHeadMirrorsGet(client, "/settings/apps")
            #expect(settings.status == .seeOther)
            #expect(head.headers[.location] == settings.headers[.location])
        }
    }

    @Test func staticFilesTheScriptJWKSAndDiscoveryAnswerHeadWithTheirETags() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for uri in [
                "/sdk.js", "/en_US/sdk.js", "/static/gatehouse.css", "/.well-known/openid-configuration",
                "/.well-known/oauth/openid/jwks/",
            ] {
                let (get, _) = try await Self.expectHeadMirrorsGet(client, uri)
                #expect(get.status == .ok, "\(uri)")
            }
            let (script, head) = try await Self.expectHeadMirrorsGet(client, "/sdk.js")
            let etag = try #require(script.headers[.eTag])
            #expect(head.headers[.eTag] == etag)
            // A conditional HEAD answers as the conditional GET does.
            let (notModified, _) = try await Self.expectHeadMirrorsGet(client, "/sdk.js", headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
        }
    }

    @Test func aStreamedAnswerIsFramedAsTheStreamWithoutRunningIt() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let head = try await client.execute(uri: "/console/activity/stream?for=1", method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.contentType] == "text/event-stream; charset=utf-8")
            // The GET's length is unknown, so the HEAD gives none, rather than a false "0".
            #expect(head.headers[.contentLength] == nil)
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test func theJournalAndTheMetricsRecordHead() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let head = try await client.execute(uri: "/v21.0/me?access_token=\(token)", method: .head)
            #expect(head.status == .ok)
            let entry = try #require(server.services.journal.entries(limit: 1).first)
            #expect(entry.method == "HEAD")
            #expect(entry.route == "/v21.0/me")
            #expect(entry.status == 200)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.text.contains(#"method="HEAD""#))
        }
    }

    @Test func aHeadDoesOnlyWhatItsGetDoes() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let before = server.services.journal.lastSequence
            _ = try await client.execute(uri: "/v21.0/me?access_token=\(token)", method: .head)
            // One request, one journal entry: the GET ran once, not once for headers and once for the length.
            #expect(server.services.journal.lastSequence == before + 1)
            // A write asked of a HEAD through `method=` is refused, and nothing is deleted.
            let scoped = try await server.scopedID(server.alice)
            let refused = try await client.execute(
                uri: "/v21.0/\(scoped)/permissions?method=delete&access_token=\(token)", method: .head)
            #expect(refused.status == .badRequest)
            #expect(refused.body.readableBytes == 0)
            let still = try await client.execute(uri: "/v21.0/me?access_token=\(token)", method: .get)
            #expect(still.status == .ok)
            // The token endpoint's GET spends a code or mints a token, which a bodiless answer would lose.
            let exchange =
                "/v21.0/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)"
                + "&grant_type=client_credentials"
            let minted = try await client.execute(uri: exchange, method: .head)
            #expect(minted.status == .badRequest)
            #expect(minted.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(minted.body.readableBytes == 0)
            #expect(try await client.execute(uri: exchange, method: .get).status == .ok)
        }
    }
}
