import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 27 finding 8: a scenario file's aliases, size and expanded size are bounded, so a few kilobytes of YAML
/// ("billion laughs") cannot make the admin API (or `serve --scenario`) work for minutes.
@Suite struct ScenarioYAMLBombTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func check(_ client: any TestClientProtocol, _ yaml: String, file: String = "bomb.yaml") async throws -> (
        TestResponse, Duration
    ) {
        let body = ByteBuffer(string: JSONValue.object(["yaml": .string(yaml), "file": .string(file)]).serialized())
        let started = ContinuousClock.now
        let response = try await client.execute(
            uri: "/admin/api/v1/scenario?check=1", method: .post, headers: json, body: body)
        return (response, ContinuousClock.now - started)
    }

    /// Nine levels of ten aliases each, the last used as a mapping key: 10⁹ scalars once expanded, which Yams
    /// hashes whole to look for duplicate keys (before the bound, this request ran for minutes).
    static let billionLaughs: String = {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...8 {
            lines.append(
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        lines.append("? *a8\n: boom")
        return lines.joined(separator: "\n")
    }()

    @Test func billionLaughsIsRefusedQuicklyWithAClearError() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let small = "apps:\n  shop: {name: Shop}\n"
            _ = try await Self.check(client, small)  // warm-up
            let (ok, smallTime) = try await Self.check(client, small)
            #expect(ok.status == .ok)
            let (refused, bombTime) = try await Self.check(client, Self.billionLaughs)
            #expect(refused.status == .badRequest)
            #expect(
                refused.text
                    == V1Problem.validation(
                        "yaml",
                        "bomb.yaml: the file uses more than 10 YAML aliases (*name); a scenario may use at most 10"
                    ))
            // A bounded answer: no slower than a few small requests (the bomb is refused before Yams composes it).
            #expect(bombTime < smallTime * 20 + .milliseconds(50), "bomb \(bombTime), small \(smallTime)")
        }
    }

    @Test func fewAliasesThatExpandTooFarAreRefused() async throws {
        // Ten aliases: 30,000 scalars repeated 5 × 5 times is 750,000 nodes.
        let wide =
            "x: &a [" + Array(repeating: "y", count: 30_000).joined(separator: ",") + "]\n"
            + "z: &b [*a, *a, *a, *a, *a]\nw: [*b, *b, *b, *b, *b]\n"
        #expect(ScenarioYAMLLimits.aliasCount(wide) == 10)
        #expect(
            ScenarioFixtures.errors(wide) == [
                "test.yaml: the file expands to more than 250000 YAML nodes once its aliases (*name) are repeated"
            ])
    }

    @Test func theFileSizeIsBounded() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let big = "apps:\n  shop: {name: Shop}\n#" + String(repeating: "x", count: 1 << 20)
            let (refused, _) = try await Self.check(client, big, file: "big.yaml")
            #expect(refused.status == .badRequest)
            #expect(
                refused.text
                    == V1Problem.validation(
                        "yaml",
                        "big.yaml: the file is \(big.utf8.count) bytes; a scenario may be at most 1048576 bytes (1 MiB)"
                    ))
        }
    }

    @Test func aFewAliasesStillWork() throws {
        let yaml = """
            apps:
              shop: {name: Shop, redirect_uris: &uris ["https://shop.example/cb", "http://127.0.0.1/cb"]}
              admin: {name: Admin, redirect_uris: *uris}
            people:
              alice: {email: alice@shop.test, first_name: Alice, last_name: Anders, quotes: "*not an alias*"}
            """
        let scenario = try ScenarioFixtures.parse(yaml)
        #expect(
            scenario.apps.map(\.redirectURIs) == [
                ["https://shop.example/cb", "http://127.0.0.1/cb"], ["https://shop.example/cb", "http://127.0.0.1/cb"],
            ])
        #expect(ScenarioYAMLLimits.aliasCount(yaml) == 1)
    }
}
