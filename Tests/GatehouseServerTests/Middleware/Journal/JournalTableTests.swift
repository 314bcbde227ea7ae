import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HummingbirdTesting
import Logging
import GatehouseTestSupport
import Testing
import HTTPTypes

/// The optional durable journal (`--journal-table`): the `request_journal` table on SQLite and PostgreSQL, its
/// retention, and the writer that fills it off the request path.
@Suite struct JournalTableTests {
    static func entry(_ route: String, at seconds: TimeInterval, status: Int = 200) -> JournalEntry {
        JournalEntry(
            sequence: 1, time: Date(timeIntervalSince1970: 1_800_000_000 + seconds), kind: .graph, method: "GET",
            route: route,
            status: status, durationMilliseconds: 1.5, appID: "1", personName: "Alice",
            errorCode: status == 200 ? nil : 190,
            explanation: status == 200 ? nil : "token expired 4 minutes ago", tokenHashPrefix: "abcdef012345",
            parameters: [.init(name: "fields", value: "id,name")])
    }

    @Test func storesReadsAndPrunesOnEachBackend() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.journal)
            try await store.append((0..<250).map { Self.entry("/\($0)", at: TimeInterval($0)) }, node: "n1")
            try await store.append([Self.entry("/refused", at: 300, status: 400)], node: "n2")
            let recent = try await store.recent(limit: 3)
            #expect(recent.map(\.route) == ["/refused", "/249", "/248"])
            #expect(recent[0] == Self.entry("/refused", at: 300, status: 400))
            // Older than /100's time goes, then all but the newest 50.
            let removed = try await store.prune(
                olderThan: Date(timeIntervalSince1970: 1_800_000_100), keepingAtMost: 50)
            #expect(removed == 201)
            let kept = try await store.recent(limit: 1000)
            #expect(kept.count == 50 && kept.first?.route == "/refused" && kept.last?.route == "/201")
        }
    }

    @Test func theWriterCopiesTheJournalToTheTable() async throws {
        let server = try await TestServer.make(
            mode: .production,
            configure: {
                $0.journal = true; $0.journalTable = true
            })
        let writer = try #require(server.services.journalTableWriter)
        try await server.run { client in
            _ = try await client.execute(uri: "/v27.0/me?access_token=EAAGnothing", method: .get)
            await writer.flush()
            let stored = try await server.services.storage.journal!.recent(limit: 10)
            #expect(stored.count == 1)
            #expect(stored.first?.errorCode == 190 && stored.first?.explanation?.isEmpty == false)
        }
    }

    @Test func withoutTheFlagNothingGathers() async throws {
        let server = try await TestServer.make()
        #expect(server.services.journalBuffer == nil && server.services.journalTableWriter == nil)
        try await server.close()
    }
}
