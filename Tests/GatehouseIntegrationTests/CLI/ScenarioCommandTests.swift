import ChildProcesses
import AsyncHTTPClient
import Foundation
import GatehouseTestSupport
import NIOCore
import Testing
import NIOHTTP1

/// `gatehouse serve --scenario`, `gatehouse scenario apply|check` against the running server.
@Suite(.serialized, .tags(.process)) struct ScenarioCommandTests {
    static func example(_ name: String, near file: String = #filePath) -> String {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/scenarios/" + name).path
    }

    static func get(_ url: String) async throws -> (Int, String) {
        let reply = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        return (Int(reply.status.code), String(buffer: try await reply.body.collect(upTo: 1 << 16)))
    }

    @Test func serveLoadsAScenarioAndTheCommandsApplyAndCheckOthers() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shop = Self.example("shop.yaml"), friends = Self.example("friends.yaml")
        let server = try await ServedGatehouse.start(["--scenario", shop], dataDirectory: .given(dir))
        defer { server.stop() }
        let banner = server.output
        #expect(
            banner.contains("Scenario \(shop) loaded (1 apps, 2 people, 1 tokens)\n  app shop: id 1960000000000001\n"))
        // A scenario replaces the dev seed.
        #expect(!banner.contains("Demo app"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/dev-seed.json"))
        #expect(server.seed == nil)
        let base = server.baseURL
        let me = try await Self.get("\(base)/me?access_token=EAAGshopAliceLongLivedToken0000000001")
        #expect(me.0 == 200)
        #expect(me.1 == #"{"name":"Alice Anders","id":"900000000000101"}"#)

        let inSync = try await CLIProcess.run(["scenario", "check", shop, "--server", base])
        #expect(inSync.status == 0)
        #expect(inSync.stdout == "\(shop) matches the server\n")

        let differs = try await CLIProcess.run(["scenario", "check", friends, "--server", base])
        #expect(differs.status == 1)
        #expect(
            differs.stdout.hasPrefix(
                "19 difference(s) between \(friends) and the server:\n  apps.quest: no app 1960000000000002 on the server\n"
            ))

        let applied = try await CLIProcess.run(["scenario", "apply", friends, "--server", base])
        #expect(applied.status == 0)
        #expect(applied.stdout.hasPrefix("applied \(friends): 19 change(s)\n"))
        #expect(
            applied.stdout.contains(
                "app quest: id 1960000000000002, secret quest-secret-0123456789abcdef, client token "))
        #expect(applied.stdout.contains("person ana: id 100000000000201, ana@quest.test\n"))
        let again = try await CLIProcess.run(["scenario", "apply", friends, "--server", base])
        #expect(again.stdout.hasPrefix("\(friends) already matches the server; nothing changed\n"))
        #expect(try await CLIProcess.run(["scenario", "check", shop, "--server", base]).status == 0)
    }

    @Test func aBadFileIsReportedWithLineAndColumnAndNeverSent() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/bad.yaml"
        try "apps:\n  shop:\n    name: Shop\n    approved_permissions: [emial]\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        // No server at this address: the file is refused before anything is sent.
        let checked = try await CLIProcess.run(["scenario", "apply", file, "--server", "http://127.0.0.1:9"])
        #expect(checked.status == 1)
        #expect(checked.stderr == "\(file):4:28: apps.shop.approved_permissions[0]: unknown permission \"emial\"\n")
        let served = try await CLIProcess.run(["serve", "--port", "0", "--data-dir", dir, "--scenario", file])
        #expect(served.status == 1)
        #expect(
            served.stderr.contains("\(file):4:28: apps.shop.approved_permissions[0]: unknown permission \"emial\"\n"))
        let fromEnvironment = try await CLIProcess.run(
            ["serve", "--port", "0", "--data-dir", dir], environment: ["GATEHOUSE_SCENARIO": file])
        #expect(fromEnvironment.status == 1)
        #expect(
            fromEnvironment.stderr.contains(
                "\(file):4:28: apps.shop.approved_permissions[0]: unknown permission \"emial\"\n"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/gatehouse.sqlite"))
    }
}
