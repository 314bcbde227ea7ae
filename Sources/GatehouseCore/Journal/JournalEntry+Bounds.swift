import Foundation

/// How much of one request the journal keeps.
///
/// The journal is memory every client can write into: a refused request's error and explanation can repeat
/// what the client sent, and a batch adds fifty parts at once. Before these bounds, one 2 KB batch left 71 MB
/// of error messages in the ring (issue 27, finding 1). Each kept text is cut to ``maximumFieldCharacters``,
/// and the ring as a whole drops its oldest entries past ``RequestJournal/maximumBytes``.
extension JournalEntry {
    /// The most characters kept of a route, an error message, an explanation, a name or a parameter value.
    package static let maximumFieldCharacters = 1000
    /// The most characters of a path or URL recorded as an entry's route (a request, a batch part, a callback).
    package static let routeCharacters = 200
    /// The most entries one listing reads (`/admin/api/v1/journal`, `gatehouse logs --follow`).
    package static let pageSize = 1000

    /// This entry with every text cut to ``maximumFieldCharacters`` (`…` marks a cut).
    package func bounded() -> JournalEntry {
        var entry = self
        entry.route = Self.cut(route)
        entry.appName = appName.map(Self.cut)
        entry.personName = personName.map(Self.cut)
        entry.errorMessage = errorMessage.map(Self.cut)
        entry.explanation = explanation.map(Self.cut)
        entry.parameters = parameters.map { Parameter(name: Self.cut($0.name), value: Self.cut($0.value)) }
        return entry
    }

    /// What the entry costs in memory, roughly: its texts' bytes plus a fixed part for the rest.
    package var approximateBytes: Int {
        let texts = [route, method, appID, appName, personID, personName, errorMessage, explanation, tokenHashPrefix]
        return 160 + texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
            + parameters.reduce(0) { $0 + 32 + $1.name.utf8.count + $1.value.utf8.count }
    }

    private static func cut(_ text: String) -> String {
        // utf8.count is O(1) on native strings and bounds the character count from above.
        guard text.utf8.count > maximumFieldCharacters else { return text }
        let kept = text.prefix(maximumFieldCharacters)
        return kept.endIndex == text.endIndex ? text : String(kept) + "…"
    }
}
