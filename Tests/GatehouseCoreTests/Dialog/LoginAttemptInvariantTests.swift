import Foundation
import GatehouseProtocol
import GatehouseCore
import PropertyBased
import Testing

/// Rules that hold for every login, checked over generated requests, earlier grants, roles and choices.
@Suite struct LoginAttemptInvariantTests {
    /// Read and publish permissions, reviewed and not, and `public_profile` itself.
    static let pool = [
        "public_profile", "email", "user_friends", "user_birthday", "user_location", "publish_actions", "manage_pages",
        "user_posts",
    ]
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = AppRecord(
        id: "1234567890123456", secret: "s", clientToken: "c", name: "A", redirectURIs: ["https://a/cb"],
        approvedPermissions: ["email", "user_friends", "publish_actions"], createdAt: Date(timeIntervalSince1970: 0))
    static let user = UserRecord(
        id: "100000000000001", email: "a@b.c", passwordHash: "x", firstName: "A", lastName: "B",
        createdAt: Date(timeIntervalSince1970: 0))

    /// The permissions whose bit is set in `mask`.
    static func subset(_ mask: Int) -> [String] { pool.indices.filter { mask & (1 << $0) != 0 }.map { pool[$0] } }

    /// A login: what is asked (`requested`), what was granted and declined before (disjoint, as stored grants
    /// are), what the person ticks, and who they are.
    static func facts(requested: Int, granted: Int, declined: Int, flags: Int) -> LoginAttempt.Facts {
        let authTypes: [AuthType?] = [nil, .rerequest, .reauthorize, .reauthenticate]
        let request = DialogRequest(
            clientID: app.id, redirectURI: "https://a/cb",
            permissions: ["public_profile"] + subset(requested).filter { $0 != "public_profile" },
            openID: false, responseType: ResponseType.parse("code"), authType: authTypes[flags % 4],
            returnScopes: false, isLimited: false,
            droppedByLimitedLogin: [], answersWithNonce: false, rawQuery: "")
        let hasGrant = flags & 4 != 0
        let expired = flags & 8 != 0
        let grant = GrantRecord(
            appID: app.id, userID: user.id, granted: subset(granted), declined: subset(declined & ~granted),
            createdAt: now, updatedAt: now,
            lastLoginAt: expired ? now.addingTimeInterval(-91 * 86400) : now)
        var person = user
        if flags & 16 != 0 { person.testUserOfAppID = app.id }
        return LoginAttempt.Facts(
            request: request, app: app, user: person, authenticatedAt: now, justAuthenticated: true,
            grant: hasGrant ? grant : nil,
            role: flags & 32 != 0 ? .developer : nil, now: now)
    }

    static let masks = Gen.int(in: 0...(1 << 8) - 1)

    @Test func grantedAndDeclinedNeverOverlapAndPublicProfileIsAlwaysGranted() async {
        await propertyCheck(count: 2000, input: Self.masks, Self.masks, Self.masks, Self.masks, Gen.int(in: 0...63)) {
            requested, granted, declined, selected, flags in
            let facts = Self.facts(requested: requested, granted: granted, declined: declined, flags: flags)
            let plan = LoginAttempt.consentPlan(facts)
            let decision = LoginAttempt.decide(facts, plan: plan, selected: Self.subset(selected))
            #expect(
                Set(decision.granted).isDisjoint(with: decision.declined),
                "granted \(decision.granted), declined \(decision.declined)")
            #expect(decision.granted.contains("public_profile"))
            #expect(!decision.declined.contains("public_profile"))
            #expect(Set(decision.granted).count == decision.granted.count)
            #expect(Set(decision.declined).count == decision.declined.count)
            // What this login reports as denied was asked for, and is declined now.
            #expect(Set(decision.deniedThisTime).isSubset(of: facts.request.permissions))
            #expect(Set(decision.deniedThisTime).isSubset(of: decision.declined))
            // An audience is kept only while a publish permission is granted.
            if decision.defaultAudience != nil { #expect(decision.granted.contains(where: Permission.isPublish)) }
        }
    }

    @Test func thePlanAsksEachPermissionOnceAndNeverWhatItRefuses() async {
        await propertyCheck(count: 2000, input: Self.masks, Self.masks, Self.masks, Gen.int(in: 0...63)) {
            requested, granted, declined, flags in
            let facts = Self.facts(requested: requested, granted: granted, declined: declined, flags: flags)
            let plan = LoginAttempt.consentPlan(facts)
            let groups = [plan.ask, plan.unavailable, plan.alreadyGranted, plan.publish]
            let all = groups.flatMap { $0 }
            #expect(Set(all).count == all.count, "a permission in two groups: \(groups)")
            #expect(plan.ask.contains("public_profile") || plan.alreadyGranted.contains("public_profile"))
            #expect(!plan.publish.contains { !Permission.isPublish($0) })
            #expect(!plan.ask.contains { Permission.isPublish($0) })
            // Roles and test users are never refused for lack of review.
            if facts.role != nil || facts.user?.testUserOfAppID == facts.app.id { #expect(plan.unavailable.isEmpty) }
        }
    }

    @Test func ticksOutsideThePlanChangeNothing() async {
        await propertyCheck(count: 1000, input: Self.masks, Self.masks, Self.masks, Gen.int(in: 0...63)) {
            requested, granted, declined, flags in
            let facts = Self.facts(requested: requested, granted: granted, declined: declined, flags: flags)
            let plan = LoginAttempt.consentPlan(facts)
            let offered = plan.ask + plan.publish
            let honest = LoginAttempt.decide(facts, plan: plan, selected: offered)
            // A forged form that also ticks everything else grants no more than ticking what was offered.
            let forged = LoginAttempt.decide(facts, plan: plan, selected: Self.pool)
            #expect(forged == honest)
        }
    }
}
