import Foundation
import GatehouseProtocol

/// What the handlers learn about one request while answering it, for its journal entry.
///
/// The journal middleware binds a fresh note to ``current`` for the request's task, and records the entry
/// when the response is ready. Handlers anywhere below it add what they know (`JournalNote.current?.…`):
/// the app and person, the parameters that matter, and, when they refuse the request, the plain-language
/// ``explain(_:)``. With the journal off no note is bound, so each of those calls is one task-local read.
package final class JournalNote: Sendable {
    /// The note of the request this task is answering, if the journal is on.
    @TaskLocal package static var current: JournalNote?

    struct State {
        var appID: String?
        var appName: String?
        var personID: String?
        var personName: String?
        var explanation: String?
        var error: GraphError?
        var tokenHashPrefix: String?
        var parameters: [JournalEntry.Parameter] = []
        var kind: JournalEntry.Kind?
        var parts: [JournalEntry] = []
    }

    let state = LockedValue(State())

    package init() {}

    /// Records why the request is refused. The first explanation wins: it is the nearest to the cause, and the
    /// generic ones added on the way out (the error's own ``GraphError/explanation``) must not replace it.
    package func explain(_ text: @autoclosure () -> String) {
        state.withLockedValue { state in
            if state.explanation == nil { state.explanation = text() }
        }
    }

    /// The app the request is for.
    package func identify(appID: String, appName: String?) {
        state.withLockedValue { state in
            state.appID = appID
            if let appName { state.appName = appName }
        }
    }

    /// The person the request is about, as the app knows them.
    package func identify(personID: String?, personName: String?) {
        state.withLockedValue { state in
            if let personID { state.personID = personID }
            if let personName { state.personName = personName }
        }
    }

    /// The app and, for a user token, the person behind an authenticated caller.
    package func identify(_ caller: Caller) {
        let app = caller.app
        state.withLockedValue { state in
            state.appID = app.id
            state.appName = app.name
            if case .user(let user) = caller {
                state.personID = user.scopedID
                state.personName = user.user.fullName
            }
        }
    }

    /// The Graph error the request is answered with (its own explanation stands if no handler gave one).
    package func answered(with error: GraphError) {
        state.withLockedValue { state in
            state.error = error
            if state.explanation == nil { state.explanation = JournalExplanation.of(error) }
        }
    }

    /// The token the request presented, as its hash prefix.
    package func presented(token: String) {
        let prefix = JournalRedaction.tokenHashPrefix(token)
        state.withLockedValue { $0.tokenHashPrefix = prefix }
    }

    /// Adds the parameters that matter from `pairs` (redacted; others dropped; the first value of a name kept).
    package func parameters(_ pairs: some Sequence<(String, String)>) {
        add(JournalRedaction.parameters(pairs))
    }

    /// Adds the parameters that matter from a request's merged parameters.
    package func parameters(_ dictionary: [String: String]) {
        add(JournalRedaction.parameters(dictionary))
    }

    private func add(_ kept: [JournalEntry.Parameter]) {
        guard !kept.isEmpty else { return }
        state.withLockedValue { state in
            for parameter in kept where !state.parameters.contains(where: { $0.name == parameter.name }) {
                state.parameters.append(parameter)
            }
        }
    }

    /// Overrides the kind the route would give (e.g. a Graph call that is a device-login poll).
    package func classify(_ kind: JournalEntry.Kind) {
        state.withLockedValue { $0.kind = kind }
    }

    /// A batch part, recorded after the batch's own entry with a link to it.
    package func addPart(_ entry: JournalEntry) {
        state.withLockedValue { $0.parts.append(entry) }
    }

    /// The entry for this request: what the handlers noted plus what only the caller of the handlers knows.
    /// A refusal that no handler explained gets the generic explanation for its status.
    package func entry(
        time: Date, kind: JournalEntry.Kind, method: String, route: String, status: Int, durationMilliseconds: Double
    ) -> (JournalEntry, parts: [JournalEntry]) {
        let state = state.withLockedValue { $0 }
        let explanation = Self.explanation(state, status: status, route: route)
        let entry = JournalEntry(
            time: time, kind: state.kind ?? kind, method: method, route: route, status: status,
            durationMilliseconds: durationMilliseconds,
            appID: state.appID, appName: state.appName, personID: state.personID, personName: state.personName,
            errorCode: state.error?.code, errorSubcode: state.error?.errorSubcode, errorMessage: state.error?.message,
            explanation: explanation, tokenHashPrefix: state.tokenHashPrefix, parameters: state.parameters)
        return (entry, state.parts)
    }

    /// What a request's span says of it (the server's request tracing): the app, and why the request was refused
    /// in the words its journal entry uses (nil when it was not refused).
    package func traceFacts(status: Int, route: String) -> (appID: String?, reason: String?) {
        let state = state.withLockedValue { $0 }
        return (state.appID, Self.explanation(state, status: status, route: route))
    }

    /// A refusal that no handler explained gets the generic explanation of its error, or else of its status.
    private static func explanation(_ state: State, status: Int, route: String) -> String? {
        if let explanation = state.explanation { return explanation }
        guard status >= 400 || state.error != nil else { return nil }
        return state.error.map(JournalExplanation.of) ?? JournalExplanation.forStatus(status, route: route)
    }

    /// The explanation so far (tests).
    package var explanation: String? { state.withLockedValue { $0.explanation } }
}
