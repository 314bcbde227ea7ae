import ChildProcesses
import Foundation
import GatehouseProtocol
import GatehouseTestSupport
import GatehouseTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42 item 7: `gatehouse serve --otlp-endpoint` sends a login's trace to a real OTLP/HTTP receiver on loopback
/// (`CLI/Interop/otlp_trace_receiver.py`, which decodes the protobuf with OpenTelemetry's own definitions): each
/// request is a server span named and described by the HTTP conventions, the statements it ran are its client
/// spans (database conventions), a `traceparent` is continued from a trusted proxy only, and no token, code, secret
/// or password reaches an attribute.
@Suite(.tags(.process)) struct TraceExportTests {
    static var receiverScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CLI/Interop/otlp_trace_receiver.py").path
    }

    /// One exported span, as the receiver wrote it.
    struct ExportedSpan {
        let line: [String: Any]
        var name: String { line["name"] as? String ?? "" }
        var kind: String { line["kind"] as? String ?? "" }
        var traceID: String { line["trace_id"] as? String ?? "" }
        var spanID: String { line["span_id"] as? String ?? "" }
        var parentID: String { line["parent_span_id"] as? String ?? "" }
        var attributes: [String: Any] { line["attributes"] as? [String: Any] ?? [:] }
        func string(_ key: String) -> String? { attributes[key] as? String }
        func int(_ key: String) -> Int? { attributes[key] as? Int }
    }

    /// The receiver, started and listening; its output file; the endpoint to give `--otlp-endpoint`.
    struct Receiver {
        let process: ChildProcess
        let out: String
        let endpoint: String

        static func start(in scratch: ScratchDirectory) async throws -> Receiver {
            let out = scratch.url.appendingPathComponent("spans.jsonl").path
            let process = try await ChildProcess.start("python3", arguments: [TraceExportTests.receiverScript, out])
            // A missing opentelemetry-proto fails here (scripts/test installs it), never skips.
            let port = try #require(
                await process.waitForPort(after: "listening on", timeout: .seconds(30)), "receiver: \(process.output)")
            return Receiver(process: process, out: out, endpoint: "http://127.0.0.1:\(port)")
        }

        var lines: [[String: Any]] {
            guard let text = try? String(contentsOfFile: out, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        var spans: [ExportedSpan] { lines.map(ExportedSpan.init) }
    }

    /// A server that sends its spans to `receiver` within a fraction of a second of their end.
    static func serve(_ receiver: Receiver, _ arguments: [String] = []) async throws -> ServedGatehouse {
        try await ServedGatehouse.start(
            ["--otlp-endpoint", receiver.endpoint] + arguments,
            environment: ["OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_EXPORTER_OTLP_ENDPOINT": nil])
    }

    /// GET `url` with `headers`: (status, body).
    static func get(_ url: String, headers: [String: String] = [:]) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func aLoginsTraceWithItsDatabaseSpansReachesTheReceiver() async throws {
        let scratch = try ScratchDirectory.create("traces")
        defer { scratch.remove() }
        let receiver = try await Receiver.start(in: scratch)
        defer { receiver.process.terminate() }
        let server = try await Self.serve(receiver, ["--trusted-proxy", "127.0.0.1"])
        defer { server.stop() }
        let seed = try #require(server.seed)
        let person = try #require(seed.users.first)

        // The dialog (login form, consent), the code's exchange, then /me with the token.
        let redirect = try await DialogPlayer().complete(
            URL(string: seed.dialogURL)!, email: person.email, password: person.password)
        let code = try #require(
            URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        )
        let exchange = try await Self.get(
            "\(server.baseURL)/\(GraphAPIVersion.current)/oauth/access_token?"
                + FormEncoding.encode([
                    ("client_id", seed.app.id), ("client_secret", seed.app.secret),
                    ("redirect_uri", server.baseURL + "/dev/callback"), ("code", code),
                ]))
        #expect(exchange.0 == 200)
        let token = try #require(
            (try JSONSerialization.jsonObject(with: exchange.1) as? [String: Any])?["access_token"] as? String)
        let me = try await Self.get("\(server.baseURL)/me?access_token=\(token)")
        #expect(me.0 == 200)
        // A refusal: the same code again.
        let replay = try await Self.get(
            "\(server.baseURL)/\(GraphAPIVersion.current)/oauth/access_token?"
                + FormEncoding.encode([
                    ("client_id", seed.app.id), ("client_secret", seed.app.secret),
                    ("redirect_uri", server.baseURL + "/dev/callback"), ("code", code),
                ]))
        #expect(replay.0 == 400)

        try await waitUntil(seconds: 30) {
            receiver.spans.filter { $0.kind == "SPAN_KIND_SERVER" && $0.name == "GET /me" }.count == 1
                && receiver.spans.filter { $0.name == "GET /oauth/access_token" }.count == 2
        }
        let spans = receiver.spans
        #expect(receiver.lines.allSatisfy { $0["error"] == nil }, "the receiver decoded every export")
        // Every request of the login (the dialog again after the login form), the start-up's health probes aside.
        let names = spans.filter { $0.kind == "SPAN_KIND_SERVER" && $0.name != "GET /healthz" }.map(\.name)
        #expect(
            names.sorted()
                == [
                    "GET /dialog/oauth", "GET /dialog/oauth", "GET /me", "GET /oauth/access_token",
                    "GET /oauth/access_token",
                    "POST /dialog/oauth/consent", "POST /dialog/oauth/login",
                ])

        // The request spans, by the HTTP conventions and with Gatehouse's facts.
        let meSpan = try #require(spans.first { $0.name == "GET /me" })
        #expect(meSpan.kind == "SPAN_KIND_SERVER")
        #expect(meSpan.parentID == "")
        #expect(meSpan.string("http.request.method") == "GET")
        #expect(meSpan.string("http.route") == "/me")
        #expect(meSpan.string("url.path") == "/me")
        #expect(meSpan.string("url.scheme") == "http")
        #expect(meSpan.int("http.response.status_code") == 200)
        #expect(meSpan.string("gatehouse.app_id") == seed.app.id)
        #expect(meSpan.string("gatehouse.outcome") == "ok")
        #expect(meSpan.line["resource"].flatMap { ($0 as? [String: Any])?["service.name"] as? String } == "gatehouse")
        let exchanges = spans.filter { $0.name == "GET /oauth/access_token" }
        #expect(exchanges.map { $0.int("http.response.status_code") } == [200, 400])
        #expect(exchanges.map { $0.string("gatehouse.outcome") } == ["ok", "refused"])
        #expect(exchanges.last?.string("gatehouse.reason")?.isEmpty == false)

        // The statements: client spans of the request that ran them, in its trace.
        let servers = Dictionary(
            spans.filter { $0.kind == "SPAN_KIND_SERVER" }.map { ($0.spanID, $0) }, uniquingKeysWith: { a, _ in a })
        let statements = spans.filter { $0.string("db.system.name") != nil }
        #expect(!statements.isEmpty)
        for statement in statements {
            #expect(statement.kind == "SPAN_KIND_CLIENT")
            #expect(statement.string("db.system.name") == "sqlite")
            let parent = try #require(servers[statement.parentID], "\(statement.name) has a request span as parent")
            #expect(parent.traceID == statement.traceID)
            #expect(statement.name.hasPrefix(statement.string("db.operation.name") ?? "?"))
            #expect(statement.string("db.query.text")?.isEmpty == false)
        }
        let exchangeStatements = statements.filter { $0.parentID == exchanges.first?.spanID }.map(\.name)
        #expect(
            exchangeStatements.contains { $0.hasPrefix("INSERT tokens") || $0.hasPrefix("UPDATE") },
            "\(exchangeStatements)")
        #expect(statements.contains { $0.parentID == meSpan.spanID && $0.name == "SELECT tokens" }, "/me's caller read")

        // Nothing secret in any exported attribute (or name).
        let exported = try String(contentsOfFile: receiver.out, encoding: .utf8)
        for secret in [token, code, seed.app.secret, person.password] {
            #expect(!exported.contains(secret), "an exported span carries a secret")
        }
    }

    @Test func aTraceparentIsContinuedFromATrustedProxyOnly() async throws {
        let scratch = try ScratchDirectory.create("traces")
        defer { scratch.remove() }
        let receiver = try await Receiver.start(in: scratch)
        defer { receiver.process.terminate() }
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736", parentID = "00f067aa0ba902b7"
        let traceparent = "00-\(traceID)-\(parentID)-01"

        // Trusted: the loopback peer is the configured proxy.
        let trusting = try await Self.serve(receiver, ["--trusted-proxy", "127.0.0.1"])
        #expect(try await Self.get(trusting.baseURL + "/me", headers: ["traceparent": traceparent]).0 == 400)
        try await waitUntil(seconds: 30) { receiver.spans.contains { $0.name == "GET /me" } }
        trusting.stop()
        // Untrusted: the same request to a server that trusts no proxy.
        let plain = try await Self.serve(receiver)
        defer { plain.stop() }
        #expect(try await Self.get(plain.baseURL + "/me", headers: ["traceparent": traceparent]).0 == 400)

        try await waitUntil(seconds: 30) { receiver.spans.filter { $0.name == "GET /me" }.count == 2 }
        let requests = receiver.spans.filter { $0.name == "GET /me" }
        let continued = requests.filter { $0.traceID == traceID }
        #expect(continued.count == 1)
        #expect(continued.first?.parentID == parentID)
        #expect(continued.first?.string("gatehouse.outcome") == "refused")
        let fresh = requests.filter { $0.traceID != traceID }
        #expect(fresh.count == 1)
        #expect(fresh.first?.parentID == "")
    }
}
