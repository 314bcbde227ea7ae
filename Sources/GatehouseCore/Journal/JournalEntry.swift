import Foundation

/// One request (or batch part, or callback delivery) as the request journal keeps it.
///
/// Secrets never appear in full: ``parameters`` holds only the parameters that matter, already redacted by
/// ``JournalRedaction`` (a secret as its last four characters, a token or code as its hash prefix). Request
/// bodies are never kept. ``explanation`` is Gatehouse's plain-language reason for a refusal; it lives here and
/// in the console, never on the wire, where Facebook's exact error stays.
package struct JournalEntry: Sendable, Equatable, Codable {
    /// What kind of step this was.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// `/dialog/…` pages and their form posts (login dialog, feed and requests dialogs).
        case dialog
        /// `/oauth/access_token` and `/oauth/access_token_info`.
        case token
        /// `/debug_token`.
        case debugToken = "debug_token"
        /// Any other Graph API call.
        case graph
        /// One entry of a Graph batch (`POST /` with `batch=[…]`), recorded beside the batch itself.
        case batchPart = "batch_part"
        /// Device login: the Graph side (`device/login`, `device/login_status` polls) and the `/device` pages.
        case device
        /// A deauthorize or data-deletion callback the server delivered (or failed to deliver) to an app.
        case callback
        /// A message the mail outbox sent (or failed to send): sign-up confirmation, password reset, invitation.
        case mail
        /// Other pages (`/login`, `/settings/apps`, …).
        case page
    }

    /// A request parameter, redacted.
    package struct Parameter: Sendable, Equatable, Codable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Increasing number given by the journal that recorded the entry (0 until recorded).
    package var sequence: Int
    /// When the request started, by the server's clock (which may have been moved in development mode).
    package var time: Date
    package var kind: Kind
    package var method: String
    /// The path without its query (`/v27.0/me`), or for a batch part `batch[2] me/friends`.
    package var route: String
    package var status: Int
    package var durationMilliseconds: Double
    package var appID: String?
    package var appName: String?
    /// The person as the app sees them: app-scoped id and name.
    package var personID: String?
    package var personName: String?
    /// Facebook's error, as sent on the wire.
    package var errorCode: Int?
    package var errorSubcode: Int?
    package var errorMessage: String?
    /// Why the request was refused, in plain language (never sent to the client).
    package var explanation: String?
    /// The SHA-256 prefix of the token the request presented (``JournalRedaction/tokenHashPrefix(_:)``), so a
    /// token's page can list its requests.
    package var tokenHashPrefix: String?
    package var parameters: [Parameter]
    /// For a batch part: the batch's own entry.
    package var batchSequence: Int?

    package init(
        sequence: Int = 0, time: Date, kind: Kind, method: String, route: String, status: Int,
        durationMilliseconds: Double,
        appID: String? = nil, appName: String? = nil, personID: String? = nil, personName: String? = nil,
        errorCode: Int? = nil, errorSubcode: Int? = nil, errorMessage: String? = nil, explanation: String? = nil,
        tokenHashPrefix: String? = nil, parameters: [Parameter] = [], batchSequence: Int? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.kind = kind
        self.method = method
        self.route = route
        self.status = status
        self.durationMilliseconds = durationMilliseconds
        self.appID = appID
        self.appName = appName
        self.personID = personID
        self.personName = personName
        self.errorCode = errorCode
        self.errorSubcode = errorSubcode
        self.errorMessage = errorMessage
        self.explanation = explanation
        self.tokenHashPrefix = tokenHashPrefix
        self.parameters = parameters
        self.batchSequence = batchSequence
    }

    /// Whether the request was refused or failed: an HTTP status of 400 or more, or a Graph error inside a 200
    /// (a batch part's own status is its entry's, so that is covered too).
    package var isError: Bool { status >= 400 || errorCode != nil }

    /// `190/463`, `100`, or nil.
    package var errorCodeText: String? {
        guard let errorCode else { return nil }
        return errorSubcode.map { "\(errorCode)/\($0)" } ?? "\(errorCode)"
    }

    enum CodingKeys: String, CodingKey {
        case sequence = "seq", time, kind, method, route, status
        case durationMilliseconds = "duration_ms"
        case appID = "app_id", appName = "app_name", personID = "person_id", personName = "person_name"
        case errorCode = "error_code", errorSubcode = "error_subcode", errorMessage = "error_message"
        case explanation
        case tokenHashPrefix = "token"
        case parameters = "params"
        case batchSequence = "batch_seq"
    }
}

/// Which entries a reader wants (`/console/activity`, `/admin/api/v1/journal`, `gatehouse logs`).
package struct JournalFilter: Sendable, Equatable {
    /// An app id.
    package var appID: String?
    /// An app-scoped id, or part of a name (case-insensitive).
    package var person: String?
    /// `404`, or a class such as `4xx`.
    package var status: String?
    /// Part of the route (case-insensitive), e.g. `access_token` or `dialog`.
    package var route: String?
    /// A token's hash prefix (at least 8 hex characters).
    package var token: String?
    package var errorsOnly: Bool

    package init(
        appID: String? = nil, person: String? = nil, status: String? = nil, route: String? = nil, token: String? = nil,
        errorsOnly: Bool = false
    ) {
        self.appID = appID.flatMap { $0.isEmpty ? nil : $0 }
        self.person = person.flatMap { $0.isEmpty ? nil : $0 }
        self.status = status.flatMap { $0.isEmpty ? nil : $0 }
        self.route = route.flatMap { $0.isEmpty ? nil : $0 }
        self.token = token.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        self.errorsOnly = errorsOnly
    }

    package var isEmpty: Bool { self == JournalFilter() }

    package func matches(_ entry: JournalEntry) -> Bool {
        if errorsOnly && !entry.isError { return false }
        if let appID, entry.appID != appID { return false }
        if let person {
            let byID = entry.personID == person
            let byName = entry.personName?.range(of: person, options: .caseInsensitive) != nil
            if !byID && !byName { return false }
        }
        if let status {
            let text = String(entry.status)
            if status.count == 3, status.lowercased().hasSuffix("xx") {
                if text.first != status.first { return false }
            } else if text != status {
                return false
            }
        }
        if let route, entry.route.range(of: route, options: .caseInsensitive) == nil { return false }
        if let token {
            guard let prefix = entry.tokenHashPrefix, token.hasPrefix(prefix) || prefix.hasPrefix(token) else {
                return false
            }
        }
        return true
    }
}
