import Foundation
import GatehouseProtocol

/// What an operator's event says happened: the one catalogue of event types, written once. The raw values are the
/// wire names (`GET /admin/api/v1/events?type=`, `gatehouse events --type`, the sinks' `types`).
package enum EventType: String, CaseIterable, Sendable, Codable {
    /// A person or a console administrator signed in and a session started; `details.account` says whose (see
    /// `LoginEvents`).
    case loginSucceeded = "login.succeeded"
    /// A login was refused; `details.reason` is the journal's explanation.
    case loginFailed = "login.failed"
    /// A person granted an app permissions for the first time.
    case consentGranted = "consent.granted"
    /// A person changed what an existing grant holds (more or fewer permissions), or removed the app.
    case consentChanged = "consent.changed"
    case tokenIssued = "token.issued"
    case tokenRevoked = "token.revoked"
    /// A user token's expiry passed (found by the expiry sweep, once per token).
    case tokenExpired = "token.expired"
    /// An authorization code was exchanged for a token.
    case codeExchanged = "code.exchanged"
    /// A used authorization code was presented again; every token minted from it is revoked.
    case codeReplayed = "code.replayed"
    /// A person changed their password (knowing the old one) or an administrator set it.
    case passwordChanged = "password.changed"
    /// A person set a new password through a mailed reset link.
    case passwordReset = "password.reset"
    case twoFactorEnrolled = "two_factor.enrolled"
    case twoFactorDisabled = "two_factor.disabled"
    /// A login code (or a recovery code, `details.method`) was accepted at login.
    case twoFactorUsed = "two_factor.used"
    case accountStateChanged = "account.state_changed"
    case accountDeleted = "account.deleted"
    /// A write through the admin API or the console (the audit log's entry).
    case adminWrite = "admin.write"

    /// Every wire name, comma-separated, for error messages and help.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// One event for operators: what happened, when, to which app and person, on which node. Stored in `events`,
/// listed by `GET /admin/api/v1/events`, and POSTed to the configured sinks.
///
/// ``id`` is unique and stable: a sink that receives the same event twice (a retry after a timeout) sees the same
/// id, so receivers deduplicate by it. ``details`` never holds a secret, token, password or code: the recorders
/// pass only names, ids, states, permissions and the journal's explanations (`EventSecrecyTests`).
package struct GatehouseEvent: Sendable, Equatable {
    /// The position in the `events` table (0 before it is stored); the cursor of `GET /events` is built on it.
    package var sequence: Int64
    package var id: String
    package var type: EventType
    package var time: Date
    package var appID: String?
    /// The person's global id (the admin API's `/people/{id}`).
    package var personID: String?
    /// The node that recorded it (host name and port).
    package var node: String
    package var details: [String: String]

    package init(
        sequence: Int64 = 0, id: String, type: EventType, time: Date, appID: String? = nil, personID: String? = nil,
        node: String, details: [String: String] = [:]
    ) {
        self.sequence = sequence
        self.id = id
        self.type = type
        self.time = time
        self.appID = appID
        self.personID = personID
        self.node = node
        self.details = details
    }

    /// The event as the admin API and the sinks send it, keys in a fixed order, details sorted by key.
    package var json: JSONValue {
        var details = JSONObject()
        for key in self.details.keys.sorted() { details[key] = .string(self.details[key]!) }
        return .object([
            "id": .string(id), "type": .string(type.rawValue), "time": .string(Self.timeText(time)),
            "app_id": appID.map(JSONValue.string) ?? .null, "person_id": personID.map(JSONValue.string) ?? .null,
            "node": .string(node), "details": .object(details),
        ])
    }

    /// RFC 3339 in UTC, whole seconds (as stored).
    package static func timeText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }
}
