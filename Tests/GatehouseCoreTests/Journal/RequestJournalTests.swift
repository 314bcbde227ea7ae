import Foundation
import GatehouseProtocol
import GatehouseCore
import Testing

@Suite struct RequestJournalTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(
        _ route: String, status: Int = 200, app: String? = "1", person: String? = nil, error: Int? = nil,
        token: String? = nil
    ) -> JournalEntry {
        JournalEntry(
            time: t0, kind: .graph, method: "GET", route: route, status: status, durationMilliseconds: 1,
            appID: app, personID: person.map { "9\($0.count)" }, personName: person, errorCode: error,
            tokenHashPrefix: token)
    }

    @Test func numbersEntriesAndReadsNewestFirst() {
        let journal = RequestJournal(capacity: 10)
        #expect(journal.record(entry("/a")) == 1)
        #expect(journal.record(entry("/b")) == 2)
        #expect(journal.entries().map(\.route) == ["/b", "/a"])
        #expect(journal.lastSequence == 2)
        #expect(journal.entry(sequence: 1)?.route == "/a")
    }

    @Test func isBoundedAndForgetsTheOldest() {
        let journal = RequestJournal(capacity: 3)
        for i in 1...7 { journal.record(entry("/\(i)")) }
        #expect(journal.entries(limit: 100).map(\.route) == ["/7", "/6", "/5"])
        #expect(journal.entry(sequence: 4) == nil)
        #expect(journal.entry(sequence: 5)?.route == "/5")
        #expect(journal.entry(sequence: 8) == nil)
    }

    @Test func afterGivesOnlyNewerEntries() {
        let journal = RequestJournal(capacity: 5)
        for i in 1...4 { journal.record(entry("/\(i)")) }
        #expect(journal.entries(after: 2).map(\.sequence) == [4, 3])
        #expect(journal.entries(after: 4).isEmpty)
    }

    @Test func offRecordsNothing() {
        let journal = RequestJournal(capacity: 5, enabled: false)
        #expect(journal.record(entry("/a")) == nil)
        #expect(journal.entries().isEmpty)
        journal.setEnabled(true)
        #expect(journal.record(entry("/b")) == 1)
    }

    @Test func filtersByAppPersonStatusRouteTokenAndErrors() {
        let journal = RequestJournal(capacity: 20)
        journal.record(entry("/v27.0/me", app: "1", person: "Alice Anders", token: "abcdef012345"))
        journal.record(entry("/v27.0/oauth/access_token", status: 400, app: "2", error: 100))
        journal.record(entry("/dialog/oauth", status: 404, app: nil))
        journal.record(entry("/v27.0/me/friends", status: 200, app: "1", person: "Bob Brown", error: 200))
        #expect(journal.entries(matching: JournalFilter(appID: "1")).count == 2)
        #expect(journal.entries(matching: JournalFilter(person: "alice")).map(\.route) == ["/v27.0/me"])
        #expect(journal.entries(matching: JournalFilter(status: "4xx")).count == 2)
        #expect(journal.entries(matching: JournalFilter(status: "404")).map(\.route) == ["/dialog/oauth"])
        #expect(journal.entries(matching: JournalFilter(route: "ACCESS_token")).count == 1)
        #expect(journal.entries(matching: JournalFilter(token: "abcdef01")).count == 1)
        // A Graph error inside a 200 (a batch part, or an error-shaped reply) counts as an error.
        #expect(journal.entries(matching: JournalFilter(errorsOnly: true)).count == 3)
    }

    @Test func batchPartsAreFoundByTheirBatch() {
        let journal = RequestJournal(capacity: 10)
        let batch = journal.record(entry("/"))!
        var part = entry("batch[0] me")
        part.batchSequence = batch
        journal.record(part)
        #expect(journal.parts(ofBatch: batch).map(\.route) == ["batch[0] me"])
    }

    @Test func sinkSeesEveryRecordedEntry() {
        final class Sink: JournalSink, @unchecked Sendable {
            let lock = NSLock()
            var seen: [Int] = []
            func accept(_ entry: JournalEntry) { lock.withLock { seen.append(entry.sequence) } }
        }
        let sink = Sink()
        let journal = RequestJournal(capacity: 2, sink: sink)
        for i in 1...3 { journal.record(entry("/\(i)")) }
        #expect(sink.seen == [1, 2, 3])
    }

    @Test func concurrentRecordingKeepsEveryNumberOnce() async {
        let journal = RequestJournal(capacity: 10_000)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask { for j in 0..<200 { journal.record(entry("/\(i)/\(j)")) } }
            }
        }
        let numbers = journal.entries(limit: 10_000).map(\.sequence)
        #expect(numbers.count == 1600)
        #expect(Set(numbers).count == 1600)
    }
}

@Suite struct JournalNoteTests {
    @Test func firstExplanationWinsOverTheCatalogue() {
        let note = JournalNote()
        note.explain("code already used at 10:02:11 by this app")
        note.answered(with: .codeUsed)
        note.explain("something later")
        let (entry, _) = note.entry(
            time: Date(), kind: .token, method: "GET", route: "/oauth/access_token", status: 400,
            durationMilliseconds: 1)
        #expect(entry.explanation == "code already used at 10:02:11 by this app")
        #expect(entry.errorCode == 100 && entry.errorSubcode == 36009)
        #expect(entry.errorMessage == GraphError.codeUsed.message)
    }

    @Test func anUnexplainedRefusalGetsTheCatalogueOrTheStatus() {
        let graph = JournalNote()
        graph.answered(with: .tokenRequired)
        #expect(
            graph.entry(time: Date(), kind: .graph, method: "GET", route: "/me", status: 400, durationMilliseconds: 0).0
                .explanation?.contains("no access token") == true)
        let page = JournalNote()
        #expect(
            page.entry(
                time: Date(), kind: .page, method: "GET", route: "/nowhere", status: 404, durationMilliseconds: 0
            ).0.explanation == "there is no page or route at /nowhere")
        let fine = JournalNote()
        #expect(
            fine.entry(time: Date(), kind: .graph, method: "GET", route: "/me", status: 200, durationMilliseconds: 0).0
                .explanation == nil)
    }

    @Test func taskLocalIsNilWithoutAJournal() {
        #expect(JournalNote.current == nil)
        let note = JournalNote()
        JournalNote.$current.withValue(note) {
            JournalNote.current?.explain("bound")
        }
        #expect(note.explanation == "bound")
    }
}
