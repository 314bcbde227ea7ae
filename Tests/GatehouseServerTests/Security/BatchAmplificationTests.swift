import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes

/// Issue 27, finding 1: a batch could grow its own results exponentially. `{result=…}` substitutions had no bound,
/// failed entries' results were kept for substitution, the "unknown path" error echoed the whole path, and the
/// journal kept every multi-megabyte message. Each test drives `POST /` as a client would.
@Suite struct BatchAmplificationTests {
    static func batch(_ client: any TestClientProtocol, token: String, _ entries: [JSONValue]) async throws
        -> TestResponse
    {
        try await RequestFloodTests.post(
            client, "/", [("access_token", token), ("batch", JSONValue.array(entries).serialized())])
    }

    static func entryBody(_ item: JSONValue?) -> JSONValue? {
        item?["body"]?.stringValue.flatMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    /// The attack as reported: each entry's path repeats the previous entry's "unknown path" error twice. Before the
    /// fix 17 entries in 2 KB answered 18 MB; thirty would have asked for about 40·2²⁹ bytes.
    /// (A path segment over 128 bytes is an unknown path, whatever precedes it.)
    static func doublingChain(_ count: Int) -> [JSONValue] {
        (0..<count).map { i in
            let previous = "{result=e\(i - 1):$.error.message}"
            let url =
                i == 0
                ? "x/" + String(repeating: "a", count: 300)
                : "x/\(previous)/\(previous)/" + String(repeating: "b", count: 300)
            return ["method": "GET", "relative_url": .string(url), "name": .string("e\(i)")]
        }
    }

    @Test func aChainOfEchoedErrorsStaysSmall() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        let journal = server.services.journal
        try await server.run { client in
            let r = try await Self.batch(client, token: alice, Self.doublingChain(30))
            #expect(r.status == .ok)
            // Thirty short errors: a few KB, not 2^30 times the first path.
            #expect(r.body.readableBytes < 32 * 1024, "\(r.body.readableBytes) bytes")
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 30)
            let first = try #require(Self.entryBody(items[0]))
            #expect(first["error"]?["code"]?.intValue == 2500)
            // The first entry's path is echoed up to the echo limit, then cut.
            let echoed = "Unknown path components: /x/" + String(repeating: "a", count: GraphError.echoLimit - 3) + "…"
            #expect(first["error"]?["message"]?.stringValue == echoed)
            for item in items.dropFirst() {
                // A failed entry's result is never substituted: the later paths hold nothing where it was referenced.
                #expect(item["code"]?.intValue == 400)
                let cut = "Unknown path components: /x/" + String(repeating: "b", count: GraphError.echoLimit - 3) + "…"
                #expect(Self.entryBody(item)?["error"]?["message"]?.stringValue == cut)
            }
        }
        // 31 entries (the batch and its parts), all small.
        #expect(journal.bytes < 64 * 1024, "\(journal.bytes) bytes in the journal")
    }

    @Test func aSubstitutionPastItsBoundFailsThatEntryOnly() async throws {
        let server = try await TestServer.make(configure: { $0.limits.batchSubstitutionBytes = 4096 })
        let alice = try await server.token(for: server.alice)
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let reference = "{result=me:$.id}"
            let fits = 4000 / scoped.utf8.count
            let over = 4096 / scoped.utf8.count + 1
            let r = try await Self.batch(
                client, token: alice,
                [
                    ["method": "GET", "relative_url": "me?fields=id", "name": "me", "omit_response_on_success": false],
                    [
                        "method": "GET",
                        "relative_url": .string("me?fields=id&pad=" + String(repeating: reference, count: over)),
                    ],
                    [
                        "method": "GET",
                        "relative_url": .string("me?fields=id&pad=" + String(repeating: reference, count: fits)),
                    ],
                    [
                        "method": "POST", "relative_url": "me/feed",
                        "body": .string("message=" + String(repeating: reference, count: over)),
                    ],
                ])
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 4)
            #expect(items[0]["code"]?.intValue == 200)
            let refused: JSONValue = [
                "error": [
                    "message":
                        "(#100) The batch entry is longer than 4096 bytes once its {result=…} references are replaced",
                    "type": "OAuthException", "code": 100,
                ]
            ]
            #expect(items[1]["code"]?.intValue == 400)
            #expect(Self.entryBody(items[1]) == refused)
            #expect(items[2]["code"]?.intValue == 200)
            #expect(Self.entryBody(items[2])?["id"]?.stringValue == scoped)
            #expect(Self.entryBody(items[3]) == refused)
        }
    }

    @Test func repliesPastTheBatchsTotalAreLeftOut() async throws {
        let server = try await TestServer.make(configure: { $0.limits.batchAnswerBytes = 2048 })
        let alice = try await server.token(for: server.alice, granted: ["public_profile", "email", "user_birthday"])
        try await server.run { client in
            let entry: JSONValue = [
                "method": "GET", "relative_url": "me?fields=id,name,first_name,last_name,email,birthday",
            ]
            let r = try await Self.batch(client, token: alice, Array(repeating: entry, count: 20))
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 20)
            let answered = items.filter { $0["code"]?.intValue == 200 }
            let one = try #require(answered.first?["body"]?.stringValue?.utf8.count)
            #expect(answered.count == 2048 / one)
            let leftOut: JSONValue = [
                "error": [
                    "message": "(#100) The batch's replies would exceed 2048 bytes; this entry's reply was left out",
                    "type": "OAuthException", "code": 100,
                ]
            ]
            for item in items.dropFirst(answered.count) {
                #expect(item["code"]?.intValue == 400)
                #expect(Self.entryBody(item) == leftOut)
            }
        }
    }

    @Test func anUnknownPathEchoesAtMostTheEchoLimit() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let long = String(repeating: "b", count: 5000)
            let r = try await client.execute(uri: "/v27.0/me/\(long)/x?access_token=\(alice)", method: .get)
            #expect(r.status == .badRequest)
            let message = try #require(r.json["error"]?["message"]?.stringValue)
            #expect(
                message == "Unknown path components: /me/" + String(repeating: "b", count: GraphError.echoLimit - 4)
                    + "…")
        }
    }

    @Test func theJournalKeepsBoundedMessages() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        let journal = server.services.journal
        try await server.run { client in
            // Fifty refused parts, each with an explanation about a long field list: each is cut, none is lost.
            let fields = (0..<400).map { "nope\($0)" }.joined(separator: ",")
            let entry: JSONValue = ["method": "GET", "relative_url": .string("me?fields=" + fields)]
            _ = try await Self.batch(client, token: alice, Array(repeating: entry, count: 50))
        }
        let entries = journal.entries(limit: 100)
        #expect(entries.count == 51)
        for entry in entries {
            #expect((entry.errorMessage?.count ?? 0) <= JournalEntry.maximumFieldCharacters + 1)
            #expect((entry.explanation?.count ?? 0) <= JournalEntry.maximumFieldCharacters + 1)
            #expect(entry.parameters.allSatisfy { $0.value.count <= JournalEntry.maximumFieldCharacters + 1 })
        }
        #expect(journal.bytes <= 51 * 8 * 1024)
    }
}
