import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import Testing
import NIOHTTP1

/// `serve --print-config`, production refusals, `admin create` and `seed bench`, run as the real binary.
@Suite(.serialized, .tags(.process)) struct CLIOpsTests {
    @Test func printConfigShowsTheEffectiveConfigurationWithSecretsMasked() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = (dir as NSString).appendingPathComponent("gatehouse.yaml")
        try "port: 9100\nhost: 127.0.0.2\nlimits:\n  login_attempts_per_ip: 7\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let out = try await CLIProcess.run(
            [
                "serve", "--config", file, "--port", "9300", "--database", "postgres://gh:hunter2-secret@db.example/gh",
                "--print-config",
            ],
            environment: ["GATEHOUSE_PORT": "9200", "GATEHOUSE_PUBLIC_URL": "https://login.example.com"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("host: 127.0.0.2  # host in the config file\n"))
        #expect(out.stdout.contains("port: 9300  # --port\n"))
        #expect(out.stdout.contains("public_url: https://login.example.com  # GATEHOUSE_PUBLIC_URL\n"))
        #expect(out.stdout.contains("mode: production  # default\n"))
        #expect(out.stdout.contains("database: postgres://gh:*****@db.example/gh  # --database\n"))
        #expect(out.stdout.contains("  login_attempts_per_ip: 7  # limits.login_attempts_per_ip in the config file\n"))
        #expect(!out.stdout.contains("hunter2"))

        let bad = try await CLIProcess.run(["serve", "--print-config"], environment: ["GATEHOUSE_PORT": "http"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "gatehouse: GATEHOUSE_PORT: must be a whole number from 0 to 65535, not http\n")
    }

    @Test func productionRefusesToStartWithUnsafeSettingsAndSaysWhich() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try await CLIProcess.run([
            "serve", "--mode", "production", "--host", "0.0.0.0", "--port", "0", "--public-url",
            "http://login.example.com", "--data-dir", dir,
        ])
        #expect(out.status == 1)
        #expect(out.stderr.contains("gatehouse: production mode refuses to start:\n"))
        #expect(out.stderr.contains("  - public_url http://login.example.com is not https://"))
        #expect(out.stderr.contains("  - host 0.0.0.0 listens on every interface without TLS or a trusted proxy"))
        #expect(out.stdout.isEmpty)

        // A development data directory (with its published seed) is refused too.
        let dev = try await ServedGatehouse.start(dataDirectory: .given(dir))
        #expect(dev.seed != nil)
        await dev.stopAndWait()
        let seeded = try await CLIProcess.run([
            "serve", "--mode", "production", "--port", "0", "--public-url", "https://login.example.com",
            "--trusted-proxy", "127.0.0.1", "--data-dir", dir,
        ])
        #expect(seeded.status == 1)
        #expect(seeded.stderr.contains("the data directory holds the development seed"))
    }

    @Test func adminCreateReadsThePasswordFromStdinAndProductionThenStarts() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let refused = try await CLIProcess.run(["admin", "create", "--email", "ops@example.com", "--data-dir", dir])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--password-stdin"))
        let created = try await CLIProcess.run(
            ["admin", "create", "--email", "ops@example.com", "--password-stdin", "--data-dir", dir],
            input: "a long admin password\n")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasPrefix("Created admin ops@example.com ("))
        let weak = try await CLIProcess.run(
            ["admin", "create", "--email", "two@example.com", "--password-stdin", "--data-dir", dir], input: "short\n")
        #expect(weak.status == 1)
        #expect(weak.stderr == "gatehouse: admin passwords need at least 12 characters\n")
        let listed = try await CLIProcess.run(["admin", "list", "--json", "--data-dir", dir])
        #expect((listed.json as? [[String: Any]])?.compactMap { $0["email"] as? String } == ["ops@example.com"])

        // A safe production configuration starts, without the dev seed, and keeps the console closed.
        // Its banner names the public URL, not the port it listens on: that is picked here.
        let server = try await ServedGatehouse.start(
            ["--mode", "production", "--public-url", "https://login.example.com", "--trusted-proxy", "127.0.0.1"],
            dataDirectory: .given(dir), port: try FreeTCPPort.find())
        let banner = server.output
        #expect(banner.contains("Gatehouse is listening on https://login.example.com (production mode)\n"))
        #expect(server.seed == nil)
        #expect(!banner.contains("Test users"))
        #expect(!FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("dev-seed.json")))
        server.stop()
    }

    @Test func seedBenchCreatesPeopleTokensAndCodesTheServerAccepts() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seeded = try await CLIProcess.run([
            "seed", "bench", "--users", "50", "--tokens", "200", "--codes", "3", "--data-dir", dir,
        ])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let data = try Data(
            contentsOf: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("bench-seed.json")))
        let seed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tokens = try #require(seed["sample_tokens"] as? [String])
        #expect(tokens.count == 200)
        #expect((seed["codes"] as? [String])?.count == 3)
        #expect((seed["openid_codes"] as? [String])?.count == 3)
        let server = try await ServedGatehouse.start(dataDirectory: .given(dir))
        let base = server.baseURL
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(base)/me?fields=id,name&access_token=\(tokens[199])"), timeout: .seconds(120))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
        let code = try #require((seed["codes"] as? [String])?.first)
        let appID = try #require(seed["app_id"] as? String), secret = try #require(seed["app_secret"] as? String)
        let exchange = try await HTTPClient.shared.execute(
            HTTPClientRequest(
                url:
                    "\(base)/oauth/access_token?client_id=\(appID)&client_secret=\(secret)&"
                    + "redirect_uri=https%3A%2F%2Fbench.example%2Fcallback&code=\(code)"
            ), timeout: .seconds(120))
        server.stop()
        #expect(response.status == .ok)
        #expect(body.contains("\"name\":\"Bench Person49\""), "\(body)")
        #expect(exchange.status == .ok)
    }
}
