import GatehouseCore
import Foundation
import GatehouseProtocol

/// A place in a scenario file, so every problem found after parsing still points at a line and column.
package struct ScenarioLocation: Sendable, Equatable, CustomStringConvertible {
    /// 1-based, as editors count.
    package var line: Int
    /// 1-based, in Unicode scalars (libYAML's count).
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "\(line):\(column)" }
}

/// The world a test suite wants the server to hold, as written by hand in a scenario file (see
/// `docs/scenarios/README.md`).
///
/// Apps and people are named by keys of the file's own choosing (`shop`, `alice`); every other section refers to
/// them by those keys. A scenario says how things should be, not how to get there: applying it creates what is
/// missing and corrects what differs, and leaves alone whatever the file does not mention.
package struct Scenario: Sendable, Equatable {
    package var apps: [App] = []
    package var people: [Person] = []
    package var friendships: [Friendship] = []
    package var grants: [Grant] = []
    package var tokens: [Token] = []
    package var errors: [InjectedError] = []
    /// How far the server's clock runs ahead of real time; nil leaves the clock alone.
    package var clockOffsetSeconds: Int64?
    package var clockOffsetAt: ScenarioLocation?

    package init() {}

    /// An app and its settings.
    package struct App: Sendable, Equatable {
        package var key: String
        package var at: ScenarioLocation
        /// Fixed in the file, or derived from the key (``ScenarioIDs``).
        package var id: String
        package var name: String
        /// nil: random on creation, then kept.
        package var secret: String?
        package var clientToken: String?
        package var redirectURIs: [String] = []
        /// "Allowed Domains for the JavaScript SDK" (`js_sdk_domains`).
        package var jsSDKDomains: [String] = []
        package var approvedPermissions: [String] = []
        package var requireAppSecret = false
        package var requirePKCE = false
        /// Person key → role.
        package var roles: [(person: String, role: AppRole)] = []
        package var deauthorizeCallbackURL: String?
        package var dataDeletionCallbackURL: String?
        /// Webhooks subscriptions, one per object.
        package var subscriptions: [Subscription] = []

        package static func == (a: App, b: App) -> Bool {
            a.key == b.key && a.at == b.at && a.id == b.id && a.name == b.name && a.secret == b.secret
                && a.clientToken == b.clientToken
                && a.redirectURIs == b.redirectURIs && a.approvedPermissions == b.approvedPermissions
                && a.jsSDKDomains == b.jsSDKDomains
                && a.requireAppSecret == b.requireAppSecret && a.requirePKCE == b.requirePKCE
                && a.roles.map(\.person) == b.roles.map(\.person) && a.roles.map(\.role) == b.roles.map(\.role)
                && a.deauthorizeCallbackURL == b.deauthorizeCallbackURL
                && a.dataDeletionCallbackURL == b.dataDeletionCallbackURL && a.subscriptions == b.subscriptions
        }
    }

    /// An app's subscription to one Webhooks object, as `POST /{app-id}/subscriptions` would make it.
    package struct Subscription: Sendable, Equatable {
        /// Position in the app's list, for `apps.<key>.subscriptions[i]`.
        package var index: Int
        package var at: ScenarioLocation
        package var object: WebhookObject
        package var callbackURL: String
        /// The file's field list: the subscription's fields are exactly these.
        package var fields: [String]
        package var verifyToken: String
        /// false: kept without the verification request (development mode only; see docs/WEBHOOKS.md).
        package var verify = true
    }

    /// A person who can log in.
    package struct Person: Sendable, Equatable {
        package var key: String
        package var at: ScenarioLocation
        package var id: String
        package var email: String
        /// The file's `password`, or `<key>-password` when it states none (see ``statesPassword``).
        package var password: String
        /// Whether the file states `password`. One left out is used for a new person only: an existing person
        /// keeps theirs, so an apply never resets (and signs out) someone whose password was changed elsewhere.
        package var statesPassword = false
        package var firstName: String
        package var lastName: String
        /// The field table's profile fields the file states (`UserFieldValue.editable`), by field name. Places
        /// are names; ids are derived from them as `AccountService.place(named:)` does.
        package var profile: [String: String] = [:]
        /// The PNG read from the file's `picture` path.
        package var picture: Data?
        /// App key of the app that owns this test user.
        package var testUserOf: String?
        /// App key → fixed app-scoped id.
        package var scopedIDs: [String: String] = [:]
        /// The file's `account_state`; nil when it states none (a new person is then active, an existing one
        /// keeps theirs).
        package var accountState: AccountState?
        /// The file's `two_factor_secret` (RFC 4648 base32): the person has two-factor login with this secret,
        /// so their logins stop at the login code checkpoint (issue 32).
        package var twoFactorSecret: String?
    }

    /// Two people who are friends (friendships are symmetric).
    package struct Friendship: Sendable, Equatable {
        /// Position in the file's list (entries with mistakes are dropped, so the array's own index may differ).
        package var index: Int
        package var a: String
        package var b: String
        package var at: ScenarioLocation
    }

    /// What a person granted and declined to an app, as if they had logged in.
    package struct Grant: Sendable, Equatable {
        package var index: Int
        package var app: String
        package var person: String
        package var at: ScenarioLocation
        /// Always includes `public_profile`, as on Facebook.
        package var granted: [String]
        package var declined: [String]
        package var defaultAudience: Audience?
    }

    /// A user access token with a value fixed in the file.
    package struct Token: Sendable, Equatable {
        package var index: Int
        package var app: String
        package var person: String
        package var at: ScenarioLocation
        package var value: String
        /// nil: never expires.
        package var lifetime: TimeInterval?
    }

    /// An injected Graph error (development mode only).
    package struct InjectedError: Sendable, Equatable {
        package var index: Int
        package var at: ScenarioLocation
        package var target: Target
        package var error: InjectableError
        /// nil: until cleared.
        package var times: Int?

        package enum Target: Sendable, Equatable {
            case app(String)
            case person(String)
            /// A token value listed under `tokens`.
            case token(String)
        }
    }
}

/// Ids a scenario gets when the file does not fix them: derived from the key, so the same file yields the same
/// ids on every server and a second apply finds what the first created.
package enum ScenarioIDs {
    /// A 16-digit app id, as long as Facebook's.
    package static func app(key: String) -> String { "1" + digits("app:" + key, 15) }
    /// A 15-digit person id.
    package static func person(key: String) -> String { "1" + digits("person:" + key, 14) }
    /// A UUID-shaped token record id derived from the token's value (the value itself is never stored).
    static func tokenRecord(value: String) -> String {
        let hex = Array(SecretHash.sha256Hex("gatehouse-scenario:token:" + value).uppercased().prefix(32))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
    /// An injection id derived from the entry's position and content, so re-applying finds it again.
    static func injection(_ error: Scenario.InjectedError) -> String {
        "scenario-\(error.index)-" + SecretHash.sha256Hex("\(error.target)|\(error.error.rawValue)").prefix(12)
    }

    private static func digits(_ seed: String, _ count: Int) -> String {
        let hex = SecretHash.sha256Hex("gatehouse-scenario:" + seed)
        return String(hex.compactMap { $0.hexDigitValue }.map { String($0 % 10) }.joined().prefix(count))
    }
}

extension Scenario.Person {
    /// The text a field of the table states for this person, nil when the file leaves it out.
    package subscript(field: UserField) -> String? { profile[field.name] }

    // Shorthands for the profile fields the parser's tests read (kept from when each had a property).
    package var birthday: String? { self[.birthday] }
    package var gender: String? { self[.gender] }
    package var location: String? { self[.location] }
}
