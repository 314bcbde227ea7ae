import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Every code path that refuses a request records a plain-language reason in the journal, and the client still
/// gets Facebook's exact error: one request per distinct refusal, each checked for its entry's explanation.
@Suite struct JournalExplanationPathTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The newest entry (not a batch part).
    static func last(_ server: TestServer) -> JournalEntry? {
        server.services.journal.entries(limit: 20).first { $0.kind != .batchPart }
    }

    /// Sends `uri` and returns the response and the entry it left.
    static func send(
        _ client: any TestClientProtocol, _ server: TestServer, _ uri: String, method: HTTPRequest.Method = .get,
        body: String? = nil
    ) async throws -> (TestResponse, JournalEntry) {
        let response = try await client.execute(
            uri: uri, method: method, headers: body == nil ? [:] : form, body: body.map { ByteBuffer(string: $0) })
        let entry = try #require(last(server))
        return (response, entry)
    }

    /// A refusal: the status, the wire error unchanged (no explanation in it), and an explanation containing `reason`.
    static func expectRefusal(
        _ result: (TestResponse, JournalEntry), code: Int?, subcode: Int? = nil, _ reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (response, entry) = result
        #expect(response.status.code >= 400, "status \(response.status.code)", sourceLocation: sourceLocation)
        #expect(entry.status == Int(response.status.code), sourceLocation: sourceLocation)
        if let code {
            #expect(entry.errorCode == code, sourceLocation: sourceLocation)
            #expect(response.json["error"]?["code"]?.intValue == Int64(code), sourceLocation: sourceLocation)
            #expect(entry.errorSubcode == subcode, sourceLocation: sourceLocation)
        }
        let explanation = entry.explanation ?? ""
        #expect(explanation.contains(reason), "explanation was: \(explanation)", sourceLocation: sourceLocation)
        // Never on the wire.
        #expect(!explanation.isEmpty && !response.text.contains(explanation), sourceLocation: sourceLocation)
    }

    @Test func graphRefusals() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(
            for: server.alice, granted: ["public_profile"], declined: ["user_friends", "email"])
        let (_, revoked) = try await server.services.tokens.mintUserToken(
            app: server.app, userID: server.bob.id, lifetime: 3600, origin: "test")
        try await server.services.storage.grants.save(
            GrantRecord(
                appID: server.app.id, userID: server.bob.id, granted: ["public_profile"], declined: [],
                createdAt: server.clock.now(), updatedAt: server.clock.now(), lastLoginAt: server.clock.now()))
        let (bobText, bobRecord) = try await server.services.tokens.mintUserToken(
            app: server.app, userID: server.bob.id, lifetime: 3600, origin: "test")
        try await server.services.storage.tokens.revoke(id: bobRecord.id, at: server.clock.now())
        _ = revoked
        try await server.run { client in
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me"), code: 2500, "needs a user access token")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/\(server.app.id)/accounts"), code: 104,
                "no access token was sent")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=EAAGnothing"), code: 190,
                "not one this server issued")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=\(bobText)"), code: 190, subcode: 467,
                "the token was revoked at ")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=\(alice)&appsecret_proof=0000"), code: 100,
                "appsecret_proof does not match: it was computed with a different secret or token")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me/friends?access_token=\(alice)"), code: 200,
                "user_friends was declined by Alice Anders at 08:00")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?fields=nope&access_token=\(alice)"), code: 100,
                "a parameter is invalid: Tried accessing nonexisting field (nope)")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/123456789/feed?access_token=\(alice)"), code: 100,
                subcode: 33, "does not exist")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/fql?q=SELECT%20x%20FROM&access_token=\(alice)"), code: 601,
                "FQL query could not be parsed")
            Self.expectRefusal(
                try await Self.send(
                    client, server, "/v27.0/\(server.app.id)/accounts/test-users?access_token=\(alice)"), code: 15,
                "app access token")
            Self.expectRefusal(
                try await Self.send(
                    client, server,
                    "/v27.0/device/login_status?code=nope&access_token=\(server.app.id)|\(server.app.clientToken)",
                    method: .post), code: 100, "Invalid device login code")

            // A field left out is noted on the successful call too.
            let (ok, read) = try await Self.send(client, server, "/v27.0/me?fields=id,email&access_token=\(alice)")
            #expect(ok.status == .ok)
            #expect(read.explanation == "email was declined by Alice Anders at 08:00, so email was left out")
            #expect(read.personName == "Alice Anders" && read.appName == "Test App" && read.personID != nil)
            #expect(read.tokenHashPrefix == JournalRedaction.tokenHashPrefix(alice))
        }
    }

    /// With no handler's own reason, the entry carries the explanation the error was made with, word for word,
    /// and the client gets the error's wire shape without it.
    @Test func anEntryCarriesTheExplanationItsErrorWasMadeWith() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        let other = try await server.services.accounts.createApp(
            name: "Other App", redirectURIs: ["https://other.example/cb"])
        let cases: [(uri: String, error: GraphError)] = [
            ("/v21.0/\(server.app.id)/accounts/test-users?access_token=\(alice)", .appTokenRequired),
            ("/v21.0/\(server.app.id)/subscriptions?access_token=\(alice)", .appTokenRequired),
            (
                "/v21.0/debug_token?input_token=\(alice)&access_token=\(other.id)%7C\(other.secret)",
                .inputTokenOfAnotherApp
            ),
            (
                "/v21.0/fql?q=SELECT%20uid%20FROM%20user%20WHERE%20name%20=%20%27Alice%27&access_token=\(alice)",
                .fqlNotIndexable
            ),
            ("/v21.0/me?access_token=\(server.app.id)%7Cwrong", .invalidAppToken),
        ]
        try await server.run { client in
            for (uri, error) in cases {
                let (response, entry) = try await Self.send(client, server, uri)
                #expect(Int(response.status.code) == error.httpStatus, "\(uri)")
                #expect(response.json == error.envelopeJSON, "\(uri)")
                #expect(entry.explanation == error.explanation, "\(uri)")
                #expect(entry.errorCode == error.code && entry.errorMessage == error.message, "\(uri)")
            }
        }
    }

    @Test func expiryInjectionAndRemovalAreExplainedWithTheirFacts() async throws {
        let server = try await TestServer.make()
        let short = try await server.token(for: server.alice, lifetime: 60)
        let long = try await server.token(for: server.bob)
        _ = try await ErrorInjector(services: server.services).add(
            kind: .user, target: server.bob.id, error: "190/460", times: 3)
        try await server.run { client in
            server.clock.advance(by: 61 * 86_400)
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=\(short)"), code: 190, subcode: 463,
                "token expired 60 days ago (clock moved +61d)")
            server.clock.advance(by: -61 * 86_400)
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=\(long)"), code: 190, subcode: 460,
                "injected error 190/460 (rule #1, 2 left)")
            try await server.services.storage.grants.delete(appID: server.app.id, userID: server.bob.id)
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/me?access_token=\(long)"), code: 190, subcode: 458,
                "Bob Brown has no grant for Test App")
        }
    }

    @Test func tokenEndpointRefusals() async throws {
        let server = try await TestServer.make()
        let now = server.clock.now()
        func code(_ text: String, used: Bool = false, redirect: String = TestServer.redirectURI, age: TimeInterval = 0)
            async throws
        {
            try await server.services.storage.codes.insert(
                AuthCodeRecord(
                    id: UUID().uuidString, codeHash: SecretHash.sha256Hex(text), appID: server.app.id,
                    userID: server.alice.id, redirectURI: redirect,
                    createdAt: now.addingTimeInterval(-age), expiresAt: now.addingTimeInterval(600 - age),
                    usedAt: used ? now.addingTimeInterval(-5) : nil))
        }
        try await code("used-code", used: true)
        try await code("fresh-code")
        try await code("old-code", age: 900)
        let app = server.app
        let base =
            "/v27.0/oauth/access_token?client_id=\(app.id)&client_secret=\(app.secret)&redirect_uri=\(TestServer.redirectURI)"
        try await server.run { client in
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/oauth/access_token?code=x"), code: 101, "has no client_id")
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/oauth/access_token?client_id=999&code=x"), code: 101,
                "no app has the client_id `999`")
            Self.expectRefusal(
                try await Self.send(
                    client, server,
                    "/v27.0/oauth/access_token?client_id=\(app.id)&client_secret=wrong-secret-abcd&code=x"), code: 1,
                "client_secret …abcd does not match Test App's secret …\(app.secret.suffix(4))")
            Self.expectRefusal(
                try await Self.send(client, server, base + "&code=never-issued"), code: 100,
                "no code with this value was issued")
            Self.expectRefusal(
                try await Self.send(client, server, base + "&code=used-code"), code: 100, subcode: 36009,
                "code already used at 07:59:55 by this app; the tokens minted from it have been revoked")
            Self.expectRefusal(
                try await Self.send(client, server, base + "&code=old-code"), code: 100, subcode: 36007,
                "5 minutes ago (codes live 10 minutes)")
            let wrongRedirect =
                "/v27.0/oauth/access_token?client_id=\(app.id)&client_secret=\(app.secret)&redirect_uri=https://app.example.com/cb&code=fresh-code"
            Self.expectRefusal(
                try await Self.send(client, server, wrongRedirect), code: 100, subcode: 36008,
                "redirect_uri `https://app.example.com/cb` differs from the dialog's "
                    + "`https://app.example.com/callback` (differs after `https://app.example.com/c`: `b` instead of `allback`)"
            )
            let (refused, entry) = try await Self.send(client, server, base + "&code=used-code")
            // The wire error is Facebook's, byte for byte.
            #expect(refused.text == GraphError.codeUsed.envelopeJSON.serialized())
            #expect(entry.personName == "Alice Anders" && entry.appID == app.id)
            // The secret is kept as its last four characters, the code as its hash prefix, and neither in full.
            let params = Dictionary(uniqueKeysWithValues: entry.parameters.map { ($0.name, $0.value) })
            #expect(params["client_secret"] == "…" + app.secret.suffix(4))
            #expect(params["code"] == "#" + JournalRedaction.tokenHashPrefix("used-code"))
            #expect(!entry.json.serialized().contains(app.secret))
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/debug_token?access_token=\(app.id)|\(app.secret)"),
                code: 100, "input_token is required")
        }
    }

    @Test func dialogRefusals() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let wrong = "/dialog/oauth?client_id=\(server.app.id)&redirect_uri=https://app.example.com/cb&state=s"
            Self.expectRefusal(
                try await Self.send(client, server, wrong), code: nil,
                "redirect_uri `https://app.example.com/cb` is not registered for app Test App; registered: "
                    + "`https://app.example.com/callback`, `http://127.0.0.1/cb` (differs after "
                    + "`https://app.example.com/c`: `b` instead of `allback`)"
            )
            let (page, entry) = try await Self.send(client, server, wrong)
            #expect(entry.kind == .dialog && entry.appName == "Test App")
            #expect(!page.text.contains("differs after"))
            Self.expectRefusal(
                try await Self.send(client, server, "/v27.0/dialog/oauth?client_id=4242&redirect_uri=x"), code: nil,
                "no app has the client_id `4242`")
            Self.expectRefusal(
                try await Self.send(client, server, "/dialog/oauth?redirect_uri=x"), code: nil,
                "The login link is missing client_id")
            Self.expectRefusal(
                try await Self.send(
                    client, server, "/dialog/oauth/login", method: .post, body: "email=a&password=b&csrf_token=x"),
                code: nil,
                "CSRF token does not match")
            Self.expectRefusal(
                try await Self.send(client, server, "/nowhere/at/all.html"), code: 104, "no access token was sent")
        }
    }

    @Test func batchPartsAreRecordedEachWithTheirReason() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let batch =
                #"[{"method":"GET","relative_url":"me"},{"method":"GET","#
                + #""relative_url":"me/friends?access_token=\#(alice)"},{"method":"GET","relative_url":"me?access_token=EAAGbad"}]"#
            let body =
                "access_token=\(alice)&batch="
                + (batch.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let response = try await client.execute(
                uri: "/v27.0/", method: .post, headers: Self.form, body: ByteBuffer(string: body))
            #expect(response.status == .ok)
            let entry = try #require(Self.last(server))
            let parts = server.services.journal.parts(ofBatch: entry.sequence)
            #expect(parts.map(\.route) == ["batch[0] me", "batch[1] me/friends", "batch[2] me"])
            #expect(parts.map(\.status) == [200, 403, 400])
            #expect(parts[1].explanation == "user_friends was never granted by Alice Anders to this app")
            #expect(parts[2].explanation?.contains("not one this server issued") == true)
            #expect(parts[0].explanation == nil && parts[0].personName == "Alice Anders")
            let tooMany =
                "[" + Array(repeating: #"{"method":"GET","relative_url":"me"}"#, count: 51).joined(separator: ",") + "]"
            let refused = try await client.execute(
                uri: "/v27.0/", method: .post, headers: Self.form,
                body: ByteBuffer(
                    string: "access_token=\(alice)&batch="
                        + (tooMany.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")))
            #expect(refused.status == .badRequest)
            #expect(Self.last(server)?.explanation == "a batch may hold at most 50 requests")
        }
    }

    @Test func callbackDeliveriesAreRecorded() async throws {
        struct Failing: CallbackTransport {
            func post(url: String, form: String) async throws -> (status: Int, body: [UInt8]) { (500, []) }
        }
        let server = try await TestServer.make(callbackTransport: Failing())
        var app = server.app
        app.deauthorizeCallbackURL = "https://app.example.com/deauthorize?secret=1"
        let scoped = try await server.scopedID(server.alice)
        try await server.services.outbox.enqueue(
            .deauthorize, app: app, userID: server.alice.id, scopedUserID: scoped, at: server.clock.now())
        await server.services.outbox.deliverDue()
        let entry = try #require(server.services.journal.entries().first)
        #expect(entry.kind == .callback && entry.status == 500 && entry.route == "https://app.example.com/deauthorize")
        #expect(
            entry.explanation
                == "the app's deauthorize callback URL answered HTTP 500; attempt 1 of 9, next at 08:00:30")
        try await server.close()
    }

    /// A sweep of malformed and refused requests over every kind of route: whatever refuses them, each error
    /// entry carries a reason, and none falls through to the catalogue's generic "refused with Graph error".
    @Test func everyRefusalInASweepIsExplained() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        let app = server.app
        let appToken = "\(app.id)|\(app.secret)"
        let gets = [
            "/", "/v27.0/me", "/v27.0/me?access_token=", "/v27.0/me?access_token=\(String(repeating: "x", count: 600))",
            "/v27.0/me?access_token=\(app.id)|wrong", "/v27.0/me?access_token=\(appToken)",
            "/v27.0/me?fields=a{b{c{d{e{f{g{h{i{j}}}}}}}}}&access_token=\(alice)",
            "/v27.0/me/nothing/here/at/all/x?access_token=\(alice)", "/v27.0/me/feed?access_token=\(alice)",
            "/v27.0/me/permissions/email?access_token=\(alice)",
            "/v27.0/999/picture?access_token=\(alice)", "/v27.0/?ids=1,2&access_token=\(alice)",
            "/v27.0/fql?q=SELECT%20name%20FROM%20user&access_token=\(alice)",
            "/v27.0/fql?q=SELECT%20nope%20FROM%20user%20WHERE%20uid=me()&access_token=\(alice)",
            "/v27.0/fql?q=SELECT%20a%20FROM%20nope&access_token=\(alice)",
            "/v27.0/oauth/access_token", "/v27.0/oauth/access_token?client_id=\(app.id)",
            "/v27.0/oauth/access_token?client_id=\(app.id)&grant_type=bogus",
            "/v27.0/oauth/access_token?client_id=\(app.id)&client_secret=\(app.secret)&grant_type=fb_exchange_token",
            "/v27.0/oauth/access_token?client_id=\(app.id)&grant_type=fb_exchange_nonce&fb_exchange_nonce=nope",
            "/v27.0/oauth/access_token?grant_type=fb_extend_sso_token&access_token=\(alice)",
            "/v27.0/oauth/access_token_info?access_token=\(alice)&client_id=42",
            "/v27.0/debug_token", "/v27.0/debug_token?access_token=\(app.id)|\(app.clientToken)&input_token=x",
            "/v27.0/\(app.id)/accounts/test-users?access_token=\(alice)",
            "/v27.0/\(app.id)/accounts/bogus?access_token=\(appToken)",
            "/dialog/oauth", "/dialog/oauth?client_id=\(app.id)",
            "/dialog/oauth?client_id=\(app.id)&redirect_uri=\(TestServer.redirectURI)&scope=nonsense_scope",
            "/dialog/oauth?client_id=\(app.id)&redirect_uri=\(TestServer.redirectURI)&code_challenge=short",
            "/dialog/feed?app_id=\(app.id)&redirect_uri=https://elsewhere.example/", "/dialog/apprequests?app_id=nope",
            "/v99x/dialog/oauth", "/device?user_code=NOPE", "/settings/apps/remove", "/no/such/page",
        ]
        try await server.run { client in
            for uri in gets { _ = try await client.execute(uri: uri, method: .get) }
            for uri in [
                "/v27.0/me/feed?access_token=\(alice)", "/v27.0/device/login?access_token=\(alice)",
                "/dialog/oauth/consent", "/v27.0/",
            ] {
                _ = try await client.execute(
                    uri: uri, method: .post, headers: Self.form, body: ByteBuffer(string: "batch=nope"))
            }
            _ = try await client.execute(uri: "/v27.0/me", method: .put)
        }
        let refused = server.services.journal.entries(matching: JournalFilter(errorsOnly: true), limit: 1000)
        #expect(refused.count >= 35)
        for entry in refused {
            let explanation = entry.explanation ?? ""
            #expect(!explanation.isEmpty, "\(entry.method) \(entry.route) \(entry.status) has no explanation")
            #expect(!explanation.hasPrefix("refused with"), "\(entry.method) \(entry.route): \(explanation)")
        }
    }

    @Test func offRecordsNothingAndAddsNoMiddleware() async throws {
        let server = try await TestServer.make(configure: { $0.journal = false })
        try await server.run { client in
            _ = try await client.execute(uri: "/v27.0/me", method: .get)
            #expect(server.services.journal.entries().isEmpty)
            let api = try await client.execute(uri: "/admin/api/v1/journal", method: .get)
            #expect(api.json["enabled"]?.boolValue == false)
            let page = try await client.execute(uri: "/console/activity", method: .get)
            #expect(page.text.contains("The request journal is off"))
        }
    }

    @Test func productionModeKeepsItOffUnlessConfigured() {
        #expect(GatehouseConfiguration(mode: .production).journalEnabled == false)
        #expect(GatehouseConfiguration(mode: .development).journalEnabled == true)
        var on = GatehouseConfiguration(mode: .production)
        on.journal = true
        #expect(on.journalEnabled)
    }
}
