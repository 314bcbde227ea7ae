import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes

/// Issue 27, finding 2: every list a client controls is bounded before it is processed, in linear time.
///
/// `?ids=` once removed duplicates with `Array.contains` before checking the 50-id limit: 16,000 ids took 7.6 s
/// of CPU for one anonymous request. Each test here sends one list at 1 MiB and compares its answer time with a
/// request of the same size whose bytes are not a list (a `pad` parameter), in the same run: linear handling
/// keeps the two close, quadratic handling makes the list hundreds of times slower. The small request's time is
/// printed beside them for the record. Ratios, not wall-clock limits.
@Suite struct ClientListBoundsTests {
    static let mebibyte = 1 << 20

    /// A list of distinct items, comma-joined, about 1 MiB long.
    static func list(_ item: (Int) -> String, separator: String = ",") -> String {
        var out = "", i = 0
        while out.utf8.count < mebibyte {
            if i > 0 { out += separator }
            out += item(i)
            i += 1
        }
        return out
    }

    static let pad = String(repeating: "p", count: mebibyte)

    /// The median time of `runs` calls of `request`.
    static func median(_ runs: Int, _ request: () async throws -> Void) async rethrows -> Duration {
        var times: [Duration] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            try await request()
            times.append(ContinuousClock.now - start)
        }
        return times.sorted()[runs / 2]
    }

    /// Times the 1 MiB list against the 1 MiB pad and a small request; the list may cost at most `bound` times the pad.
    static func expectLinear(
        _ name: String, bound: Double = 8, small: () async throws -> Void, padded: () async throws -> Void,
        list: () async throws -> Void
    ) async throws {
        try await small()  // warm up the route
        let tSmall = try await median(5, small)
        let tPad = try await median(3, padded)
        let tList = try await median(3, list)
        let ratio = tList / tPad
        print(
            "\(name): small \(tSmall), 1 MiB pad \(tPad), 1 MiB list \(tList); list/pad "
                + "\(String(format: "%.2f", ratio)), list/small \(String(format: "%.1f", tList / tSmall))"
        )
        #expect(ratio < bound, "\(name): a 1 MiB list took \(ratio)× a 1 MiB pad")
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ form: [(String, String)]) async throws
        -> TestResponse
    {
        try await RequestFloodTests.post(client, uri, form)
    }

    @Test func idsStopAtTheFirstPastTheLimit() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 4 << 20 })
        let alice = try await server.token(for: server.alice)
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let ids = Self.list { "\(100_000_000 + $0)" }
            let tooMany: JSONValue = [
                "error": [
                    "message": "(#100) Too many IDs. Maximum: 50. Provided: more than 50.", "type": "OAuthException",
                    "code": 100,
                ]
            ]
            try await Self.expectLinear(
                "ids",
                small: {
                    let r = try await Self.post(
                        client, "/v27.0/", [("method", "GET"), ("ids", scoped), ("access_token", alice)])
                    #expect(r.status == .ok)
                },
                padded: {
                    let r = try await Self.post(
                        client, "/v27.0/",
                        [("method", "GET"), ("ids", scoped), ("pad", Self.pad), ("access_token", alice)])
                    #expect(r.status == .ok)
                },
                list: {
                    let r = try await Self.post(
                        client, "/v27.0/", [("method", "GET"), ("ids", ids), ("access_token", alice)])
                    #expect(r.status == .badRequest)
                    #expect(r.json == tooMany)
                })
            // Fifty distinct ids, however often repeated, are within the limit.
            let repeated = Array(repeating: scoped, count: 10_000).joined(separator: ",")
            let r = try await Self.post(
                client, "/v27.0/", [("method", "GET"), ("ids", repeated), ("access_token", alice)])
            #expect(r.status == .ok)
            #expect(r.json.objectValue?.keys.map { $0 } == [scoped])
        }
    }

    @Test func fieldsAreRefusedBeforeTheyAreSplit() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 4 << 20 })
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let fields = Self.list { "f\($0)" }
            try await Self.expectLinear(
                "fields",
                small: {
                    _ = try await Self.post(
                        client, "/v27.0/me", [("method", "GET"), ("fields", "id"), ("access_token", alice)])
                },
                padded: {
                    _ = try await Self.post(
                        client, "/v27.0/me",
                        [("method", "GET"), ("fields", "id"), ("pad", Self.pad), ("access_token", alice)])
                },
                list: {
                    let r = try await Self.post(
                        client, "/v27.0/me", [("method", "GET"), ("fields", fields), ("access_token", alice)])
                    #expect(r.status == .badRequest)
                    #expect(r.json["error"]?["code"]?.intValue == 100)
                })
        }
    }

    @Test func batchEntriesAreCountedBeforeAnyRuns() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 4 << 20 })
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let entries = "[" + Self.list { #"{"method":"GET","relative_url":"me?x=\#($0)"}"# } + "]"
            let one = #"[{"method":"GET","relative_url":"me"}]"#
            let tooMany: JSONValue = [
                "error": [
                    "message": "(#1) Too many requests in batch message. Maximum batch size is 50",
                    "type": "OAuthException", "code": 1,
                ]
            ]
            try await Self.expectLinear(
                "batch entries",
                small: {
                    _ = try await Self.post(client, "/", [("batch", one), ("access_token", alice)])
                },
                padded: {
                    _ = try await Self.post(client, "/", [("batch", one), ("pad", Self.pad), ("access_token", alice)])
                },
                list: {
                    let r = try await Self.post(client, "/", [("batch", entries), ("access_token", alice)])
                    #expect(r.json == tooMany)
                })
        }
    }

    @Test func scopesAreSplitOnceAndEchoedBriefly() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let base =
                "/dialog/oauth?client_id=\(server.app.id)&redirect_uri=\(FormEncoding.escape(TestServer.redirectURI))&state=s"
            let scopes = Self.list { "nope_\($0)" }
            try await Self.expectLinear(
                "scope",
                small: {
                    _ = try await client.execute(uri: base + "&scope=email", method: .get)
                },
                padded: {
                    _ = try await client.execute(uri: base + "&scope=email&pad=" + Self.pad, method: .get)
                },
                list: {
                    let r = try await client.execute(uri: base + "&scope=" + scopes, method: .get)
                    #expect(r.status == .badRequest)
                    // The page names the first ten, not a megabyte of them.
                    #expect(
                        r.text.contains(
                            "Invalid Scopes: " + (0..<10).map { "nope_\($0)" }.joined(separator: ", ")
                                + ". Check the permission names."))
                    #expect(r.body.readableBytes < 64 * 1024)
                })
        }
    }

    @Test func fqlIsMeasuredBeforeItIsTokenised() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 4 << 20 })
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let query = "SELECT uid FROM user WHERE uid IN (" + Self.list { "\($0)" } + ")"
            try await Self.expectLinear(
                "fql",
                small: {
                    _ = try await Self.post(
                        client, "/v27.0/fql",
                        [("method", "GET"), ("q", "SELECT uid FROM user WHERE uid = me()"), ("access_token", alice)])
                },
                padded: {
                    _ = try await Self.post(
                        client, "/v27.0/fql",
                        [
                            ("method", "GET"), ("q", "SELECT uid FROM user WHERE uid = me()"), ("pad", Self.pad),
                            ("access_token", alice),
                        ])
                },
                list: {
                    let r = try await Self.post(
                        client, "/v27.0/fql", [("method", "GET"), ("q", query), ("access_token", alice)])
                    #expect(r.status == .badRequest)
                    #expect(
                        r.json["error"]?["message"]?.stringValue
                            == "(#601) Parser error: the query is longer than 4096 characters.")
                })
        }
    }

    @Test func redirectURIsAndApprovedPermissionsAreBoundedWhereTheyAreWritten() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 4 << 20 })
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/console/apps").text))
            let uris = Self.list({ "https://app\($0).example/cb" }, separator: "\n")
            let path = "/console/apps/\(server.app.id)"
            try await Self.expectLinear(
                "redirect URIs",
                small: {
                    _ = try await browser.post(
                        path,
                        form: [("csrf_token", csrf), ("name", "Test App"), ("redirect_uris", TestServer.redirectURI)])
                },
                padded: {
                    _ = try await browser.post(
                        path,
                        form: [
                            ("csrf_token", csrf), ("name", "Test App"), ("redirect_uris", TestServer.redirectURI),
                            ("pad", Self.pad),
                        ])
                },
                list: {
                    let r = try await browser.post(
                        path, form: [("csrf_token", csrf), ("name", "Test App"), ("redirect_uris", uris)])
                    #expect(r.status == .badRequest)
                    #expect(r.text.contains("An app registers at most 100 redirect URIs."))
                })
            #expect(
                try await server.services.storage.apps.find(id: server.app.id)?.redirectURIs == [TestServer.redirectURI]
            )
            // A permission repeated a hundred thousand times is approved once.
            let repeated = Array(repeating: ("approved", "user_birthday"), count: 100_000)
            let saved = try await browser.post(
                path,
                form: [("csrf_token", csrf), ("name", "Test App"), ("redirect_uris", TestServer.redirectURI)] + repeated
            )
            #expect(saved.status == .seeOther)
            #expect(
                try await server.services.storage.apps.find(id: server.app.id)?.approvedPermissions == ["user_birthday"]
            )
        }
    }

    /// A scenario's lists are YAML nodes, which cost far more to compose than the bytes of a comment, so here the
    /// 1 MiB list is compared with the same list at a quarter of the size: linear work is about 4 times slower,
    /// quadratic work about 16.
    @Test func scenarioListsAreCheckedInLinearTime() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let head =
                "apps:\n  shop: {name: Shop}\npeople:\n  ann: {first_name: Ann, last_name: Lee, email: ann@example.com}\n"
            func check(_ body: String) async throws -> TestResponse {
                let json = JSONValue.object(["yaml": .string(head + body), "file": "lists.yaml"]).serialized()
                return try await client.execute(
                    uri: "/admin/api/v1/scenario?check=1", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: json))
            }
            // Just under the scenario's 1 MiB bound: the file's size, not its lists, is what is refused past it.
            func granted(_ size: Int) -> String {
                var list = "grants:\n  - {app: shop, person: ann, granted: [email"
                while list.utf8.count < size { list += ", email" }
                return list + "]}\n"
            }
            func tokens(_ size: Int) -> String {
                var list = "tokens:\n"
                while list.utf8.count < size { list += "  - {app: shop}\n" }
                return list
            }
            let small = try await check("grants:\n  - {app: shop, person: ann, granted: [email]}\n")
            #expect(small.status == .ok, "\(small.text)")
            let full = 1_000_000 - head.utf8.count
            for (name, list) in [("scenario granted list", granted), ("scenario tokens list", tokens)] {
                let (quarter, whole) = (list(full / 4), list(full))
                _ = try await check(quarter)  // warm up
                let tQuarter = try await Self.median(3) { _ = try await check(quarter) }
                var refused: TestResponse?
                let tWhole = try await Self.median(3) { refused = try await check(whole) }
                print(
                    "\(name): 1/4 MiB \(tQuarter), 1 MiB \(tWhole); ratio \(String(format: "%.2f", tWhole / tQuarter))")
                #expect(tWhole / tQuarter < 8, "\(name): 4 times the list took \(tWhole / tQuarter) times as long")
                let r = try #require(refused)
                #expect(r.status == .badRequest)
                let errors = try #require(r.json["detail"]?.stringValue?.split(separator: "\n"))
                // The first hundred problems, then one line saying there are more.
                #expect(errors.count == ScenarioReader.maximumErrors + 1)
                #expect(errors.last == "lists.yaml: more than 100 problems; the rest are not listed")
            }
        }
    }
}
