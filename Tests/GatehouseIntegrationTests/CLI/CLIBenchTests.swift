import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// `gatehouse bench-reference` and `gatehouse bench commit-rate`, the two tools `scripts/bench` relies on.
@Suite(.serialized, .tags(.process)) struct CLIBenchTests {
    /// The reference app answers `/bench/hello` exactly as the server's own bench route does (the bench's
    /// ratio compares the two), on the port it prints, and serves nothing else.
    @Test func benchReferenceServesTheSameHelloAsTheServer() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reference = try await ServerProcess(arguments: ["bench-reference", "--port", "0"])
        defer { reference.stop() }
        let line = try await reference.waitFor("listening on ")
        let referenceBase = try #require(Self.url(in: line))
        #expect(!referenceBase.hasSuffix(":0"))

        let server = try await ServedGatehouse.start(
            ["--bench-routes", "--log-level", "error"], dataDirectory: .given(dir))
        defer { server.stop() }
        let serverBase = server.baseURL

        let fromReference = try await Self.get(referenceBase + "/bench/hello")
        let fromServer = try await Self.get(serverBase + "/bench/hello")
        #expect(fromReference.status == .ok)
        #expect(fromReference.body == "hello")
        #expect(fromReference.headers["Content-Type"] == ["text/plain"])
        #expect(fromReference.status == fromServer.status)
        #expect(fromReference.body == fromServer.body)
        // Every header but the date: same names, same values, same order.
        let strip = { (headers: HTTPHeaders) in
            headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \($0.value)" }
        }
        #expect(strip(fromReference.headers) == strip(fromServer.headers))

        #expect(try await Self.get(referenceBase + "/me").status == .notFound)
    }

    /// The probe commits rows through the server's SQLite settings, reports a positive rate, and leaves no file.
    @Test func commitRateProbeMeasuresAndCleansUp() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = (dir as NSString).appendingPathComponent("probe.sqlite")
        let probed = try await CLIProcess.run([
            "bench", "commit-rate", "--database", path, "--seconds", "0.5", "--json",
        ])
        #expect(probed.status == 0, "\(probed.stderr)")
        let result = try #require(probed.json as? [String: Any])
        #expect(result["database"] as? String == "sqlite")
        #expect((result["commits"] as? Int ?? 0) > 0)
        #expect((result["commitsPerSecond"] as? Double ?? 0) > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)

        // An existing file is refused: the probe creates and drops a table, so it wants a throwaway database.
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let refused = try await CLIProcess.run(["bench", "commit-rate", "--database", path, "--seconds", "0.1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("throwaway"))
    }

    /// The caller-row probe (issue 43 items 2-3) prints its four variants, CPU and wall µs a read each, and leaves
    /// no file; an existing file is refused.
    @Test func callerRowProbeTimesEachVariantAndCleansUp() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = (dir as NSString).appendingPathComponent("callers.sqlite")
        let probed = try await CLIProcess.run([
            "bench", "caller-row", "--database", path, "--callers", "10", "--iterations", "20",
        ])
        #expect(probed.status == 0, "\(probed.stderr)")
        // "CPU µs, wall µs, reads, name", the numbers padded to a column.
        let lines = probed.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(
            lines.map { $0.dropFirst(3).joined(separator: " ") } == [
                "read + decode by position (the store)", "read + decode by name", "decode only, by position",
                "decode only, by name",
            ])
        for line in lines {
            #expect(line.count > 3 && (Double(line[0]) ?? 0) > 0 && (Double(line[1]) ?? 0) > 0 && line[2] == "20")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)

        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let refused = try await CLIProcess.run(["bench", "caller-row", "--database", path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("throwaway"))
    }

    /// The seeded browser sessions and CSRF pair make consent POSTs the server accepts (the bench's consent row
    /// measured 403s before the form token was bound to the session like the dialog's own), one person each
    /// (`--sessions`: the consent row over many people).
    @Test func seededConsentPostIsAccepted() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seeded = try await CLIProcess.run([
            "seed", "bench", "--users", "5", "--tokens", "5", "--sessions", "3", "--data-dir", dir,
        ])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let data = try Data(
            contentsOf: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("bench-seed.json")))
        let seed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let app = try #require(seed["app_id"] as? String), cookie = try #require(seed["session_cookie"] as? String)
        let csrf = try #require(seed["csrf_token"] as? String), form = try #require(seed["csrf_form_token"] as? String)
        let sessions = try #require(seed["sessions"] as? [[String]])
        #expect(sessions.count == 3)
        #expect(sessions.first == [cookie, form])
        #expect(Set(sessions.map { $0[0] }).count == 3)
        let tooMany = try await CLIProcess.run([
            "seed", "bench", "--users", "2", "--sessions", "3", "--data-dir", dir + "/other",
        ])
        #expect(tooMany.status == 1)
        #expect(tooMany.stderr.contains("--sessions from 1 to --users"))

        let server = try await ServedGatehouse.start(["--log-level", "error"], dataDirectory: .given(dir))
        defer { server.stop() }
        let base = server.baseURL
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        let dialog =
            "client_id=\(app)&redirect_uri=\(escape("https://bench.example/callback"))&response_type=code&scope=email"
        // Not the shared client: it would follow the redirect to the bench app's made-up host.
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        var codes: Set<String> = []
        do {
            for session in sessions {
                var request = HTTPClientRequest(url: base + "/dialog/oauth/consent")
                request.method = .POST
                request.headers.add(name: "Cookie", value: "gh_session=\(session[0]); gh_csrf=\(csrf)")
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(
                    ByteBuffer(
                        string:
                            "csrf_token=\(escape(session[1]))&dialog=\(escape(dialog))&action=continue&permission=public_profile&permission=email"
                    ))
                let response = try await client.execute(request, timeout: .seconds(120))
                #expect(response.status == .seeOther)
                let location = response.headers["Location"].first ?? ""
                #expect(location.hasPrefix("https://bench.example/callback?code="), "\(response.headers)")
                codes.insert(location)
            }
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        #expect(codes.count == 3)
    }

    static func url(in text: String) -> String? {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("http://") }.map { String($0) }
    }

    static func get(_ url: String) async throws -> (status: HTTPResponseStatus, headers: HTTPHeaders, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
        return (response.status, response.headers, body)
    }
}
