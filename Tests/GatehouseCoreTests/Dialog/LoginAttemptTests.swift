import Foundation
import GatehouseProtocol
@testable import GatehouseCore
import Testing

@Suite struct LoginAttemptTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let app = AppRecord(
        id: "1234567890123456", secret: "s", clientToken: "c", name: "A", redirectURIs: ["https://a/cb"],
        approvedPermissions: ["user_friends"], createdAt: Date(timeIntervalSince1970: 0))
    let user = UserRecord(
        id: "100000000000001", email: "a@b.c", passwordHash: "x", firstName: "A", lastName: "B",
        createdAt: Date(timeIntervalSince1970: 0))

    func request(_ scope: String, authType: AuthType? = nil) -> DialogRequest {
        DialogRequest(
            clientID: app.id, redirectURI: "https://a/cb", state: nil,
            permissions: ["public_profile"] + Permission.parseScope(scope).filter { $0 != "public_profile" },
            openID: false, responseType: ResponseType.parse("code"), authType: authType, authNonce: nil,
            codeChallenge: nil,
            codeChallengeMethod: nil, nonce: nil, returnScopes: false, isLimited: false, droppedByLimitedLogin: [],
            answersWithNonce: false, rawQuery: "")
    }

    func facts(
        _ scope: String, authType: AuthType? = nil, user: UserRecord?? = nil, grant: GrantRecord? = nil,
        role: AppRole? = nil, just: Bool = false
    ) -> LoginAttempt.Facts {
        LoginAttempt.Facts(
            request: request(scope, authType: authType), app: app, user: user ?? self.user, authenticatedAt: now,
            justAuthenticated: just, grant: grant, role: role, now: now)
    }

    func grant(_ granted: [String], _ declined: [String] = [], lastLogin: Date? = nil) -> GrantRecord {
        GrantRecord(
            appID: app.id, userID: user.id, granted: granted, declined: declined, createdAt: now, updatedAt: now,
            lastLoginAt: lastLogin ?? now)
    }

    @Test func noSessionShowsLogin() {
        #expect(LoginAttempt.next(facts("email", user: .some(nil))) == .showLogin(prefillEmail: nil))
    }

    @Test func firstLoginShowsConsentWithPublicProfileFirst() {
        guard case .showConsent(let plan) = LoginAttempt.next(facts("email,user_friends")) else {
            Issue.record("expected consent"); return
        }
        #expect(plan.ask == ["public_profile", "email", "user_friends"])
        #expect(plan.unavailable.isEmpty)
    }

    @Test func unreviewedPermissionIsUnavailableForStrangersButNotForRolesOrTestUsers() {
        guard case .showConsent(let plan) = LoginAttempt.next(facts("user_birthday")) else {
            Issue.record("expected consent"); return
        }
        #expect(plan.unavailable == ["user_birthday"])
        let decision = LoginAttempt.decide(
            facts("user_birthday"), plan: plan, selected: ["public_profile", "user_birthday"])
        #expect(decision.granted == ["public_profile"])
        #expect(decision.declined == ["user_birthday"])
        #expect(decision.deniedThisTime == ["user_birthday"])

        guard case .showConsent(let tester) = LoginAttempt.next(facts("user_birthday", role: .tester)) else {
            Issue.record("expected consent"); return
        }
        #expect(tester.ask == ["public_profile", "user_birthday"])
        var testUser = user
        testUser.testUserOfAppID = app.id
        guard case .showConsent(let forTestUser) = LoginAttempt.next(facts("user_birthday", user: .some(testUser)))
        else { Issue.record("expected consent"); return }
        #expect(forTestUser.unavailable.isEmpty)
    }

    @Test func alreadyGrantedCompletesWithoutConsent() {
        let action = LoginAttempt.next(facts("email", grant: grant(["public_profile", "email"])))
        #expect(action == .complete(.init(granted: ["public_profile", "email"], declined: [], deniedThisTime: [])))
    }

    @Test func declinedIsNotReaskedWithoutRerequest() {
        let g = grant(["public_profile"], ["email"])
        #expect(
            LoginAttempt.next(facts("email", grant: g))
                == .complete(.init(granted: ["public_profile"], declined: ["email"], deniedThisTime: ["email"])))
        guard case .showConsent(let plan) = LoginAttempt.next(facts("email", authType: .rerequest, grant: g)) else {
            Issue.record("expected consent"); return
        }
        #expect(plan.ask == ["public_profile", "email"] || plan.ask == ["email"])
        #expect(plan.ask.contains("email"))
    }

    @Test func decliningOneKeepsTheRest() {
        let f = facts("email,user_friends")
        let plan = LoginAttempt.consentPlan(f)
        let decision = LoginAttempt.decide(f, plan: plan, selected: ["public_profile", "user_friends"])
        #expect(decision.granted == ["public_profile", "user_friends"])
        #expect(decision.declined == ["email"])
        #expect(decision.deniedThisTime == ["email"])
    }

    @Test func publicProfileCannotBeDeselected() {
        let f = facts("email")
        let decision = LoginAttempt.decide(f, plan: LoginAttempt.consentPlan(f), selected: [])
        #expect(decision.granted == ["public_profile"])
        #expect(!decision.declined.contains("public_profile"))
    }

    @Test func selectionOutsideThePlanIsIgnored() {
        let f = facts("email")
        let decision = LoginAttempt.decide(f, plan: LoginAttempt.consentPlan(f), selected: ["email", "user_posts"])
        #expect(decision.granted == ["public_profile", "email"])
    }

    @Test func reauthenticateAsksForThePasswordUntilTyped() {
        let g = grant(["public_profile", "email"])
        #expect(
            LoginAttempt.next(facts("email", authType: .reauthenticate, grant: g)) == .showLogin(prefillEmail: "a@b.c"))
        #expect(
            LoginAttempt.next(facts("email", authType: .reauthenticate, grant: g, just: true))
                == .complete(.init(granted: ["public_profile", "email"], declined: [], deniedThisTime: [])))
    }

    @Test func expiredDataAccessReasksEverything() {
        let old = grant(["public_profile", "email"], lastLogin: now.addingTimeInterval(-91 * 86400))
        guard case .showConsent(let plan) = LoginAttempt.next(facts("email", grant: old)) else {
            Issue.record("expected consent"); return
        }
        #expect(plan.renewsDataAccess)
        #expect(plan.ask == ["public_profile", "email"])
        let fresh = grant(["public_profile", "email"], lastLogin: now.addingTimeInterval(-89 * 86400))
        guard case .complete = LoginAttempt.next(facts("email", grant: fresh)) else {
            Issue.record("expected complete"); return
        }
        guard case .showConsent(let re) = LoginAttempt.next(facts("email", authType: .reauthorize, grant: fresh)) else {
            Issue.record("expected consent"); return
        }
        #expect(re.renewsDataAccess)
    }
}
