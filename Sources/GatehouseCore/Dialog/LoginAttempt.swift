import Foundation
import GatehouseProtocol

/// The login dialog's lifecycle as a pure function of what is known about the attempt.
///
/// The HTTP layer gathers the facts (session, grant, role) and performs the returned action;
/// this type decides. It has no I/O, so every rule is unit-tested directly.
package enum LoginAttempt {
    /// Everything the decision depends on.
    package struct Facts: Sendable {
        package var request: DialogRequest
        package var app: AppRecord
        /// The logged-in person, if the browser has a session.
        package var user: UserRecord?
        /// When that session last checked a password.
        package var authenticatedAt: Date?
        /// Whether the password was typed during this very attempt (for `reauthenticate`).
        package var justAuthenticated: Bool
        package var grant: GrantRecord?
        package var role: AppRole?
        package var now: Date

        package init(
            request: DialogRequest, app: AppRecord, user: UserRecord?, authenticatedAt: Date?, justAuthenticated: Bool,
            grant: GrantRecord?, role: AppRole?, now: Date
        ) {
            self.request = request
            self.app = app
            self.user = user
            self.authenticatedAt = authenticatedAt
            self.justAuthenticated = justAuthenticated
            self.grant = grant
            self.role = role
            self.now = now
        }
    }

    /// What to ask on the consent page.
    package struct ConsentPlan: Sendable, Equatable {
        /// Read permissions the person can switch on or off (`public_profile` is first and not optional).
        package var ask: [String]
        /// Requested but not approved for this app by review; they come back declined.
        package var unavailable: [String]
        /// Requested and already granted; not asked again.
        package var alreadyGranted: [String]
        /// Whether this is a renewal of expired data access.
        package var renewsDataAccess: Bool
        /// Publish permissions, asked on a second step of their own after the read permissions, as Facebook's
        /// dialog did, together with the audience of the app's posts.
        package var publish: [String] = []
        /// The audience preselected on that step: the dialog's `default_audience`.
        package var audience: Audience = .friends
    }

    /// The outcome of a completed dialog.
    package struct Decision: Sendable, Equatable {
        /// The full granted set for the app after this login.
        package var granted: [String]
        /// The full declined set for the app after this login.
        package var declined: [String]
        /// Requested permissions that ended up declined (for `denied_scopes`).
        package var deniedThisTime: [String]
        /// Who sees what the app posts; nil while no publish permission is granted.
        package var defaultAudience: Audience? = nil
    }

    package enum Action: Sendable, Equatable {
        /// Ask for email and password (prefilled for reauthentication).
        case showLogin(prefillEmail: String?)
        /// The first consent step: the read permissions.
        case showConsent(ConsentPlan)
        /// The second consent step: the plan's publish permissions and the audience.
        case showPublishConsent(ConsentPlan)
        /// Nothing to ask: redirect back to the app now.
        case complete(Decision)
    }

    /// Decides the next step of a dialog.
    package static func next(_ facts: Facts) -> Action {
        guard let user = facts.user else { return .showLogin(prefillEmail: nil) }
        if facts.request.authType == .reauthenticate && !facts.justAuthenticated {
            return .showLogin(prefillEmail: user.email)
        }
        let plan = consentPlan(facts)
        if facts.grant == nil || !plan.ask.filter({ $0 != Permission.publicProfile }).isEmpty || plan.renewsDataAccess {
            return .showConsent(plan)
        }
        if !plan.publish.isEmpty { return .showPublishConsent(plan) }
        return .complete(decide(facts, plan: plan, selected: plan.ask))
    }

    /// What follows a correct password (issue 32): the session starts at once, or, for a person with a
    /// confirmed second factor, the login code checkpoint comes first and the session starts only after it.
    /// The app sees nothing of this but the time the login took, as with Facebook.
    package enum PasswordStep: Sendable, Equatable {
        case startSession
        case askLoginCode
    }

    /// The step after a correct password. `secondFactor` is the person's second factor, if they enrolled one.
    package static func afterPassword(secondFactor: TwoFactorRecord?) -> PasswordStep {
        secondFactor?.isEnabled == true ? .askLoginCode : .startSession
    }

    /// What follows the read step: the publish step when the plan has one, else the end of the dialog.
    /// `selected` are the read permissions the person kept; the controller carries them to the publish step.
    package static func afterReadConsent(_ facts: Facts, plan: ConsentPlan, selected: [String]) -> Action {
        if !plan.publish.isEmpty { return .showPublishConsent(plan) }
        return .complete(decide(facts, plan: plan, selected: selected))
    }

    /// Which requested permissions to ask, skip or refuse.
    package static func consentPlan(_ facts: Facts) -> ConsentPlan {
        let request = facts.request
        let granted = Set(facts.grant?.granted ?? [])
        let declined = Set(facts.grant?.declined ?? [])
        let expired = facts.grant.map { $0.isDataAccessExpired(at: facts.now) } ?? false
        let renew = facts.grant != nil && (expired || request.authType == .reauthorize)
        let privileged = facts.role != nil || facts.user?.testUserOfAppID == facts.app.id

        var ask: [String] = [], unavailable: [String] = [], already: [String] = [], publish: [String] = []
        for p in request.permissions {
            let info = Permission.info(p)
            if p != Permission.publicProfile, info?.needsReview ?? true, !privileged,
                !facts.app.approvedPermissions.contains(p)
            {
                unavailable.append(p)
            } else if granted.contains(p) && !renew {
                already.append(p)
            } else if declined.contains(p) && request.authType != .rerequest && !renew {
                continue  // declined earlier; asked again only with auth_type=rerequest
            } else if Permission.isPublish(p) {
                publish.append(p)
            } else {
                ask.append(p)
            }
        }
        if !ask.contains(Permission.publicProfile) && !already.contains(Permission.publicProfile) {
            ask.insert(Permission.publicProfile, at: 0)
        }
        return ConsentPlan(
            ask: ask, unavailable: unavailable, alreadyGranted: already, renewsDataAccess: renew, publish: publish,
            audience: request.defaultAudience)
    }

    /// Applies the person's choices (`selected`, a subset of `plan.ask` and `plan.publish`) to the existing grant.
    ///
    /// `audience` is what the person picked on the publish step (the plan's preselection when nil). It is
    /// recorded when a publish permission is granted now, kept while one granted earlier remains, and
    /// cleared when none is left.
    package static func decide(_ facts: Facts, plan: ConsentPlan, selected: [String], audience: Audience? = nil)
        -> Decision
    {
        let chosen = Set(selected).intersection(plan.ask + plan.publish).union([Permission.publicProfile])
        var granted = facts.grant?.granted ?? []
        var declined = facts.grant?.declined ?? []
        func add(_ p: String, to list: inout [String]) { if !list.contains(p) { list.append(p) } }
        for p in plan.ask + plan.publish {
            if chosen.contains(p) {
                add(p, to: &granted)
                declined.removeAll { $0 == p }
            } else {
                add(p, to: &declined)
                granted.removeAll { $0 == p }
            }
        }
        for p in plan.unavailable where !granted.contains(p) { add(p, to: &declined) }
        if !granted.contains(Permission.publicProfile) { granted.insert(Permission.publicProfile, at: 0) }
        let denied = facts.request.permissions.filter { declined.contains($0) }
        var kept = facts.grant?.defaultAudience
        if plan.publish.contains(where: chosen.contains) { kept = audience ?? plan.audience }
        if !granted.contains(where: Permission.isPublish) { kept = nil }
        return Decision(granted: granted, declined: declined, deniedThisTime: denied, defaultAudience: kept)
    }
}
