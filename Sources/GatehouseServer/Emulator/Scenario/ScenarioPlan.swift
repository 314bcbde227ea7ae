import GatehouseCore
import Foundation
import GatehouseProtocol

/// One write that brings the server in line with a scenario, with the sentence `scenario check` prints for it.
package struct ScenarioChange: Sendable, Equatable, CustomStringConvertible {
    package enum Action: Sendable, Equatable {
        case setClockOffset(Int64)
        case createApp(AppRecord)
        case updateApp(AppRecord)
        case setRole(appID: String, userID: String, role: AppRole)
        /// The record's `passwordHash` is filled in by the loader.
        case createUser(UserRecord, password: String)
        /// A new password to hash, when the stored one differs from the file's.
        case updateUser(UserRecord, password: String?)
        case assignScopedID(appID: String, userID: String, scopedID: String)
        case befriend(String, String)
        case saveGrant(GrantRecord)
        case insertToken(TokenRecord)
        case setTokenExpiry(id: String, expiresAt: Date?)
        /// Gives the person two-factor login with this base32 secret (confirmed, new recovery codes).
        case setTwoFactor(userID: String, secret: String)
        /// Replaces any injection with the same id.
        case putInjection(InjectedErrorRecord)
        /// Inserts or replaces the app's subscription to its object; with a `verification`, only once the callback
        /// answered the verification request (the loader sends every one before writing anything).
        case subscribe(WebhookSubscriptionRecord, verification: Verification?)
    }

    /// Where a subscription whose callback must be verified is stated, so a refusal points at the file's line.
    package struct Verification: Sendable, Equatable {
        package var at: ScenarioLocation
        package var path: String
    }

    package var action: Action
    /// E.g. `people.alice: last_name is "Smith" on the server, "Anders" in the file`.
    package var description: String
}

/// The differences between a scenario and a server: the changes an apply makes, or the problems that stop it.
///
/// Pure: it sees the server only through a ``ScenarioSnapshot``. Only what the file states is compared; whatever
/// the server holds beyond it (other apps and people, fields the file leaves out) is neither reported nor touched.
package struct ScenarioPlan: Sendable {
    package var changes: [ScenarioChange] = []
    /// Conflicts with what the server holds (an email taken by someone else, a revoked token value, …).
    package var problems: [ScenarioError] = []

    /// - Parameters:
    ///   - now: the server's time once the scenario's clock offset applies (grants and tokens start then).
    ///   - newSecret: a fresh secret or client token, for apps the file gives none.
    ///   - place: a place with its stable id, from its name (``AccountService/place(named:)``).
    package static func make(
        _ scenario: Scenario, against server: ScenarioSnapshot, file: String, now: Date,
        newSecret: () -> String, place: (String) -> Place
    ) -> ScenarioPlan {
        let plan = ScenarioPlanBuilder(scenario: scenario, server: server, file: file, now: now)
        if let offset = scenario.clockOffsetSeconds {
            if !server.emulatorControls {
                plan.problem(scenario.clockOffsetAt, "clock_offset", "the clock can only be moved in development mode")
            } else if offset != server.clockOffsetSeconds {
                plan.change(
                    .setClockOffset(offset),
                    "clock_offset: \(server.clockOffsetSeconds) s on the server, \(offset) s in the file")
            }
        }
        plan.planApps(newSecret: newSecret)
        plan.planPeople(place: place)
        for app in scenario.apps {
            for (person, role) in app.roles {
                guard let userID = plan.userIDs[person], server.roles[app.id]?[userID] != role else { continue }
                plan.change(
                    .setRole(appID: app.id, userID: userID, role: role),
                    "apps.\(app.key).roles.\(person): \(server.roles[app.id]?[userID]?.rawValue ?? "none") on the "
                        + "server, \(role.rawValue) in the file"
                )
            }
        }
        for pair in scenario.friendships {
            guard let a = plan.userIDs[pair.a], let b = plan.userIDs[pair.b],
                !server.friendships.contains([a, b].sorted())
            else { continue }
            plan.change(.befriend(a, b), "friendships: \(pair.a) and \(pair.b) are not friends on the server")
        }
        plan.planGrantsAndTokens()
        plan.planInjections()
        plan.planSubscriptions()
        return ScenarioPlan(changes: plan.changes, problems: plan.problems)
    }

}

/// Collects a plan's changes and problems while ``ScenarioPlan/make(_:against:file:now:newSecret:place:)`` walks the file.
final class ScenarioPlanBuilder {
    let scenario: Scenario
    let server: ScenarioSnapshot
    let file: String
    let now: Date
    /// App key → app id, person key → user id.
    let appIDs: [String: String]
    let userIDs: [String: String]
    var changes: [ScenarioChange] = []
    var problems: [ScenarioError] = []

    init(scenario: Scenario, server: ScenarioSnapshot, file: String, now: Date) {
        self.scenario = scenario
        self.server = server
        self.file = file
        self.now = now
        appIDs = Dictionary(scenario.apps.map { ($0.key, $0.id) }, uniquingKeysWith: { a, _ in a })
        userIDs = Dictionary(scenario.people.map { ($0.key, $0.id) }, uniquingKeysWith: { a, _ in a })
    }

    func change(_ action: ScenarioChange.Action, _ text: String) {
        changes.append(ScenarioChange(action: action, description: text))
    }

    func problem(_ at: ScenarioLocation?, _ path: String, _ message: String) {
        problems.append(ScenarioError(file: file, location: at, path: path, message: message))
    }

    /// Quotes a value the way `check` prints it.
    static func show(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "nothing" }
    static func show(_ values: [String]) -> String { "[" + values.joined(separator: ", ") + "]" }
}
