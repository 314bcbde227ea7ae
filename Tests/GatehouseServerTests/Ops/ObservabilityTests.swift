import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Collects every log record (message and metadata, rendered) from every logger made with it.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var all: [String] { lock.withLock { lines } }
    func append(_ line: String) { lock.withLock { lines.append(line) } }

    var logger: Logger {
        Logger(label: "captured") { label in
            var handler = CapturingLogHandler(label: label, sink: self)
            handler.logLevel = .trace
            return handler
        }
    }
}

struct CapturingLogHandler: LogHandler {
    let label: String
    let sink: CapturedLogs
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        sink.append("\(event.level) \(label) \(event.message) \(merged) \(event.source) \(event.file)")
    }
}

@Suite struct ObservabilityTests {
    @Test func routeLabelsAreBoundedAndCarryNoIDsOrSecrets() {
        #expect(RouteLabel.classify("/") == "/")
        #expect(RouteLabel.classify("/me") == "/me")
        // One-word paths take a shortcut; it must agree with the full classification.
        #expect(RouteLabel.classify("/debug_token") == "/debug_token")
        #expect(RouteLabel.classify("/me/") == "/me")
        #expect(RouteLabel.classify("//me") == "/me")
        #expect(RouteLabel.classify("/v27.0") == "/")
        #expect(RouteLabel.classify("/123456") == "/{id}")
        #expect(RouteLabel.classify("/EAAGsecretTokenText") == "/{x}")
        #expect(RouteLabel.classify("/ME") == "/{x}")
        #expect(RouteLabel.classify("/v27.0/me/friends") == "/me/friends")
        #expect(RouteLabel.classify("/1234567890/picture") == "/{id}/picture")
        #expect(RouteLabel.classify("/oauth/access_token") == "/oauth/access_token")
        #expect(RouteLabel.classify("/EAAGsecretTokenText/permissions") == "/{x}/permissions")
        #expect(RouteLabel.classify("/pictures/123/456") == "/pictures/{id}/{id}")
        #expect(RouteLabel.classify("/a/b/c/d/e/f") == "/{x}/{x}/{x}/{x}/…")
        #expect(RouteLabel.classify("/.well-known/openid-configuration") == "/.well-known/openid-configuration")
    }

    /// A full run — dialog login, consent, code exchange, Graph reads and writes, debug_token, a failed login,
    /// an id_token — with every log at trace level captured; no secret used may appear in any line.
    @Test func logsOfAFullRunNeverContainATokenCodeSecretOrPassword() async throws {
        let logs = CapturedLogs()
        let server = try await TestServer.make(logger: logs.logger)
        var secrets: [String: String] = [:]
        let box = SecretsBox()
        try await server.run(.live) { client in
            let browser = Browser(client)
            // A failed login first (a password that is never right), then the real one.
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("scope", "email,openid"),
                ("nonce", "nonce-abc-123"),
            ])
            let page = try await browser.get("/dialog/oauth?" + query)
            _ = try await browser.submitLogin(page: page, email: "alice@example.com", password: "Wr0ng-Passw0rd-xyz")
            let location = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
            let code = try #require(redirectParameters(location)["code"])
            let exchanged = try await TokenEndpointTests.exchange(server, client, code: code)
            #expect(exchanged.status == .ok)
            let token = try #require(exchanged.json["access_token"]?.stringValue)
            let idToken = try #require(exchanged.json["id_token"]?.stringValue)
            #expect(
                try await client.execute(uri: "/me?fields=id,name,email&access_token=\(token)", method: .get).status
                    == .ok)
            #expect(
                try await client.execute(
                    uri: "/me/permissions", method: .get, headers: [.authorization: "Bearer \(token)"]
                ).status == .ok)
            #expect(
                try await client.execute(
                    uri: "/debug_token?input_token=\(token)&access_token=\(server.app.id)%7C\(server.app.secret)",
                    method: .get
                ).status == .ok)
            do {
                let bad = try await client.execute(uri: "/me?access_token=\(token)x", method: .get)
                #expect(bad.status == .badRequest)
            } catch { Issue.record("bad token: \(error)") }
            do {
                let proof = AppSecretProof.compute(accessToken: token, appSecret: "wrong")
                _ = try await client.execute(uri: "/me?access_token=\(token)&appsecret_proof=\(proof)", method: .get)
            } catch { Issue.record("proof: \(error)") }
            do {
                _ = try await client.execute(
                    uri:
                        "/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)&code=\(code)&redirect_uri=x",
                    method: .get)
            } catch { Issue.record("replay: \(error)") }
            box.set([
                "access token": token, "code": code, "id_token": idToken, "app secret": server.app.secret,
                "client token": server.app.clientToken, "password": "alice-password",
                "wrong password": "Wr0ng-Passw0rd-xyz",
                "session cookie": browser.cookies["__Host-gh_session"] ?? "missing",
                "csrf token": browser.cookies["gh_csrf"] ?? "missing",
            ])
        }
        secrets = box.value
        let lines = logs.all
        #expect(lines.count > 10, "the run should log at trace level")
        #expect(
            lines.contains {
                $0.contains("route: /oauth/access_token") || $0.contains("\"route\": /oauth/access_token")
                    || $0.contains("/oauth/access_token")
            })
        for (name, secret) in secrets {
            #expect(secret != "missing", "\(name) was not captured")
            let leaking = lines.filter { $0.contains(secret) }
            #expect(leaking.isEmpty, "\(name) appears in the logs: \(leaking.prefix(2))")
        }
    }

    @Test func metricsCountRequestsLoginsConsentsTokensAndErrors() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await TokenEndpointTests.code(server, client)
            let exchanged = try await TokenEndpointTests.exchange(server, client, code: code)
            let token = try #require(exchanged.json["access_token"]?.stringValue)
            _ = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            _ = try await client.execute(uri: "/me?access_token=nope", method: .get)
            let browser = Browser(client)
            _ = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + DialogFlowTests.query(server)), email: "bob@example.com",
                password: "wrong")

            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            let text = metrics.text
            for line in [
                #"gatehouse_logins_total{result="success",page="dialog"} 1"#,
                #"gatehouse_logins_total{result="failure",page="dialog"} 1"#,
                #"gatehouse_consents_total{result="granted"} 1"#,
                #"gatehouse_tokens_issued_total{kind="code"} 1"#,
                #"gatehouse_tokens_issued_total{kind="user"} 1"#,
                #"gatehouse_graph_errors_total{code="190"} 1"#,
                #"gatehouse_http_requests_total{route="/me",method="GET",status="200"} 1"#,
                #"gatehouse_http_requests_total{route="/me",method="GET",status="400"} 1"#,
                #"gatehouse_http_requests_total{route="/oauth/access_token",method="GET",status="200"} 1"#,
                #"gatehouse_http_request_duration_seconds_count{route="/me",method="GET"} 2"#,
            ] {
                #expect(text.contains(line), "missing \(line)")
            }
            #expect(text.contains("# TYPE gatehouse_http_request_duration_seconds histogram"))
            #expect(!text.contains(token))
        }
    }

    @Test func eachServerHasItsOwnRegistryAndMetricsCanBeSwitchedOff() async throws {
        let a = try await TestServer.make()
        let b = try await TestServer.make(configure: { $0.metricsEnabled = false })
        try await a.run { client in
            _ = try await client.execute(uri: "/healthz", method: .get)
            #expect(
                try await client.execute(uri: "/metrics", method: .get).text.contains(
                    #"gatehouse_http_requests_total{route="healthz""#) == false)
            #expect(
                try await client.execute(uri: "/metrics", method: .get).text.contains(
                    #"gatehouse_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        }
        try await b.run { client in
            let r = try await client.execute(uri: "/metrics", method: .get)
            #expect(r.status != .ok || !r.text.contains("gatehouse_http_requests_total"))
        }
    }
}

final class SecretsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String: String] = [:]
    func set(_ value: [String: String]) { lock.withLock { stored = value } }
    var value: [String: String] { lock.withLock { stored } }
}
