import Foundation
import GatehouseCore
import Testing

/// Issue 27, finding 1: the journal is bounded in bytes, not only in count.
@Suite struct RequestJournalBoundsTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func refused(_ route: String, message: String) -> JournalEntry {
        JournalEntry(
            time: t0, kind: .graph, method: "GET", route: route, status: 400, durationMilliseconds: 1,
            errorCode: 2500, errorMessage: message, explanation: message,
            parameters: [JournalEntry.Parameter(name: "fields", value: message)])
    }

    @Test func eachKeptTextIsCut() throws {
        let journal = RequestJournal(capacity: 10)
        let huge = String(repeating: "x", count: 1_000_000)
        journal.record(refused("/" + huge, message: huge))
        let kept = try #require(journal.entries().first)
        let cut = String(repeating: "x", count: JournalEntry.maximumFieldCharacters) + "…"
        #expect(kept.errorMessage == cut)
        #expect(kept.explanation == cut)
        #expect(kept.parameters.first?.value == cut)
        #expect(kept.route == "/" + String(repeating: "x", count: JournalEntry.maximumFieldCharacters - 1) + "…")
        // A text at the bound is kept whole.
        let exact = String(repeating: "y", count: JournalEntry.maximumFieldCharacters)
        journal.record(refused("/b", message: exact))
        #expect(journal.entries().first?.errorMessage == exact)
    }

    @Test func theRingDropsItsOldestPastItsBytes() {
        let journal = RequestJournal(capacity: 1000, maximumBytes: 20_000)
        let message = String(repeating: "m", count: 900)
        for i in 1...100 { journal.record(refused("/\(i)", message: message)) }
        #expect(journal.bytes <= 20_000)
        let kept = journal.entries(limit: 1000)
        // Newest first, contiguous, and as many as fit.
        #expect(kept.first?.route == "/100")
        #expect(kept.map(\.sequence) == Array((101 - kept.count...100).reversed()))
        // As many as fit: one more would not have.
        let held = kept.reduce(0) { $0 + $1.approximateBytes }
        #expect(held == journal.bytes)
        #expect(held + refused("/\(100 - kept.count)", message: message).bounded().approximateBytes > 20_000)
        #expect(journal.entry(sequence: 1) == nil)
        #expect(journal.lastSequence == 100)
        // Small entries fill the room the large ones leave.
        for i in 101...200 {
            journal.record(
                JournalEntry(
                    time: t0, kind: .graph, method: "GET", route: "/\(i)", status: 200, durationMilliseconds: 1))
        }
        let after = journal.entries(limit: 1000)
        #expect(Array(after.prefix(100).map(\.route)) == (101...200).reversed().map { "/\($0)" })
        #expect(after.dropFirst(100).count <= 1)  // what room is left holds at most one of the large ones
        journal.clear()
        #expect(journal.bytes == 0)
        #expect(journal.entries(limit: 1000).isEmpty)
    }

    /// `clear()` empties only the filled slots: after the ring has wrapped, after the byte bound dropped the oldest,
    /// and on an empty journal; what comes after it is kept as before, and sequences keep counting.
    @Test func clearingForgetsEveryEntryWhereverTheRingStands() {
        let journal = RequestJournal(capacity: 8, maximumBytes: 1_000_000)
        func record(_ route: String) {
            journal.record(
                JournalEntry(time: t0, kind: .graph, method: "GET", route: route, status: 200, durationMilliseconds: 1))
        }
        journal.clear()
        #expect(journal.entries().isEmpty)
        for i in 1...13 { record("/\(i)") }  // wrapped: slots 5...7 and 0...4 hold /6 ... /13
        journal.clear()
        #expect(journal.entries(limit: 100).isEmpty && journal.bytes == 0)
        #expect(journal.entry(sequence: 13) == nil)
        for route in ["/a", "/b", "/c"] { record(route) }
        #expect(journal.entries(limit: 100).map(\.route) == ["/c", "/b", "/a"])
        #expect(journal.lastSequence == 16)
        #expect(journal.entry(sequence: 14)?.route == "/a")
        #expect(journal.bytes == journal.entries(limit: 100).reduce(0) { $0 + $1.approximateBytes })
    }

    @Test func oneEntryLargerThanTheBoundIsStillKept() {
        let journal = RequestJournal(capacity: 10, maximumBytes: 1)
        journal.record(refused("/a", message: "m"))
        journal.record(refused("/b", message: "m"))
        #expect(journal.entries().map(\.route) == ["/b"])
    }
}
