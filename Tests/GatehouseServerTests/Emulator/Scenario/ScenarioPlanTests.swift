import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import Testing

/// ``ScenarioPlan`` on its own: a scenario against a hand-built snapshot of the server, no database.
@Suite struct ScenarioPlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let yaml = """
        apps:
          shop: {id: "1960000000000001", name: Shop, secret: shop-secret-0123456789abcdef, roles: {alice: admin}}
        people:
          alice: {id: "100000000000101", email: alice@shop.test, password: alice-password, first_name: Alice, last_name: Anders, location: Lisbon}
        grants:
          - {app: shop, person: alice, granted: [email], declined: [user_friends]}
        tokens:
          - {app: shop, person: alice, value: EAAGshopAliceLongLivedToken0000000001}
        errors:
          - {person: alice, error: 190/460, times: 2}
        """

    static func plan(_ server: ScenarioSnapshot, yaml: String = yaml) throws -> ScenarioPlan {
        ScenarioPlan.make(
            try ScenarioFixtures.parse(yaml), against: server, file: "test.yaml", now: now, newSecret: { "fresh" },
            place: { Place(id: "110", name: $0) })
    }

    /// The snapshot of a server that already holds everything in ``yaml``.
    static func matching() throws -> ScenarioSnapshot {
        var server = ScenarioSnapshot()
        server.isEmpty = false
        server.apps["1960000000000001"] = AppRecord(
            id: "1960000000000001", secret: "shop-secret-0123456789abcdef", clientToken: "kept", name: "Shop",
            redirectURIs: [], createdAt: now)
        server.roles["1960000000000001"] = ["100000000000101": .admin]
        server.users["100000000000101"] = UserRecord(
            id: "100000000000101", email: "alice@shop.test", passwordHash: "x", firstName: "Alice", lastName: "Anders",
            location: Place(id: "110", name: "Lisbon"), createdAt: now)
        server.userIDsByEmail["alice@shop.test"] = "100000000000101"
        server.passwordMatches["alice"] = true
        server.grants["1960000000000001/100000000000101"] = GrantRecord(
            appID: "1960000000000001", userID: "100000000000101", granted: ["email", "public_profile"],
            declined: ["user_friends"],
            createdAt: now, updatedAt: now, lastLoginAt: now)
        let hash = SecretHash.sha256Hex("EAAGshopAliceLongLivedToken0000000001")
        server.tokens[hash] = TokenRecord(
            id: "t1", tokenHash: hash, kind: .user, appID: "1960000000000001", userID: "100000000000101", issuedAt: now,
            expiresAt: now.addingTimeInterval(3600))
        let error = try ScenarioFixtures.parse(yaml).errors[0]
        server.injections[ScenarioIDs.injection(error)] = InjectedErrorRecord(
            id: ScenarioIDs.injection(error), targetKind: .user, targetID: "100000000000101", code: 190, subcode: 460,
            remaining: 2, createdAt: now)
        return server
    }

    @Test func anEmptyServerGetsEverythingInDependencyOrder() throws {
        let plan = try Self.plan(ScenarioSnapshot())
        #expect(plan.problems.isEmpty)
        #expect(
            plan.changes.map(\.description) == [
                "apps.shop: no app 1960000000000001 on the server",
                "people.alice: no person 100000000000101 on the server",
                "apps.shop.roles.alice: none on the server, admin in the file",
                "grants[0]: alice has no grant for shop on the server",
                "tokens[0]: no such token on the server",
                "errors[0]: 190/460 not injected on the server",
            ])
        guard case .createApp(let app) = plan.changes[0].action else { Issue.record("not a create"); return }
        // A secret the file fixes is used; a client token it leaves out is fresh.
        #expect(app.secret == "shop-secret-0123456789abcdef" && app.clientToken == "fresh")
        guard case .insertToken(let token) = plan.changes[4].action else { Issue.record("not a token"); return }
        #expect(token.tokenHash == SecretHash.sha256Hex("EAAGshopAliceLongLivedToken0000000001"))
        #expect(token.expiresAt == Self.now.addingTimeInterval(60 * 86400))
        #expect(token.id == ScenarioIDs.tokenRecord(value: "EAAGshopAliceLongLivedToken0000000001"))
    }

    @Test func aMatchingServerHasNoDifferences() throws {
        let plan = try Self.plan(try Self.matching())
        #expect(plan.changes.isEmpty && plan.problems.isEmpty)
    }

    @Test func eachDifferenceIsNamed() throws {
        var server = try Self.matching()
        server.users["100000000000101"]?.lastName = "Smith"
        server.users["100000000000101"]?.location = nil
        server.passwordMatches["alice"] = false
        server.roles["1960000000000001"] = ["100000000000101": .tester]
        server.grants["1960000000000001/100000000000101"]?.declined = []
        let injection = server.injections.keys.first!
        server.injections[injection]?.remaining = 1
        let plan = try Self.plan(server)
        #expect(
            plan.changes.map(\.description) == [
                "people.alice: last_name is \"Smith\" on the server, \"Anders\" in the file; location is nothing "
                    + "on the server, \"Lisbon\" in the file; password differs (the new one signs alice out: tokens answer 190/460)",
                "apps.shop.roles.alice: tester on the server, admin in the file",
                "grants[0]: granted [email, public_profile], declined [] on the server; granted [public_profile, "
                    + "email], declined [user_friends] in the file",
                "errors[0]: 190/460 1 calls left on the server",
            ])
        guard case .updateUser(let user, let password) = plan.changes[0].action else {
            Issue.record("not an update"); return
        }
        #expect(user.lastName == "Anders" && user.location?.name == "Lisbon" && password == "alice-password")
    }

    /// Issue 27 finding 6: a file that leaves `password` out never resets an existing person's password.
    @Test func aLeftOutPasswordIsNotCompared() throws {
        var server = try Self.matching()
        server.passwordMatches["alice"] = false
        let plan = try Self.plan(
            server, yaml: Self.yaml.replacingOccurrences(of: "password: alice-password, ", with: ""))
        #expect(plan.changes.isEmpty && plan.problems.isEmpty)
    }

    @Test func conflictsAreProblemsAtTheEntrysLine() throws {
        var server = try Self.matching()
        let hash = SecretHash.sha256Hex("EAAGshopAliceLongLivedToken0000000001")
        server.tokens[hash]?.revokedAt = Self.now
        server.scopedIDs["100000000000101"] = ["1960000000000001": "900000000000999"]
        let yaml = Self.yaml.replacingOccurrences(
            of: "location: Lisbon}", with: "location: Lisbon, scoped_ids: {shop: \"900000000000101\"}}")
        let plan = try Self.plan(server, yaml: yaml)
        #expect(
            plan.problems.map(\.description) == [
                "test.yaml:4:3: people.alice.scoped_ids.shop: the server already gave alice app-scoped id 900000000000999 in shop; it cannot change",
                "test.yaml:8:5: tokens[0].value: this token was revoked on the server; give the scenario a new value",
            ])
        server.tokens[hash]?.revokedAt = nil
        server.tokens[hash]?.userID = "100000000000555"
        #expect(
            try Self.plan(server).problems.map(\.description) == [
                "test.yaml:8:5: tokens[0].value: this value is already another app's or person's token on the server"
            ])
    }
}
