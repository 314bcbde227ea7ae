import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Publish permissions: asked on a second step of the dialog with the default audience, stored on the grant.
@Suite struct PublishConsentTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let app = AppRecord(
        id: "1234567890123456", secret: "s", clientToken: "c", name: "A", redirectURIs: ["https://a/cb"],
        approvedPermissions: ["email", "publish_actions", "user_posts"], createdAt: Date(timeIntervalSince1970: 0))
    let user = UserRecord(
        id: "100000000000001", email: "a@b.c", passwordHash: "x", firstName: "A", lastName: "B",
        createdAt: Date(timeIntervalSince1970: 0))

    func facts(_ scope: String, audience: Audience = .friends, grant: GrantRecord? = nil, authType: AuthType? = nil)
        -> LoginAttempt.Facts
    {
        var request = DialogRequest(
            clientID: app.id, redirectURI: "https://a/cb", state: nil,
            permissions: ["public_profile"] + Permission.parseScope(scope).filter { $0 != "public_profile" },
            openID: false, responseType: ResponseType.parse("code"), authType: authType, authNonce: nil,
            codeChallenge: nil, codeChallengeMethod: nil,
            nonce: nil, returnScopes: false, isLimited: false, droppedByLimitedLogin: [], answersWithNonce: false,
            rawQuery: "")
        request.defaultAudience = audience
        return LoginAttempt.Facts(
            request: request, app: app, user: user, authenticatedAt: now, justAuthenticated: false, grant: grant,
            role: nil, now: now)
    }

    func grant(_ granted: [String], declined: [String] = [], audience: Audience? = nil) -> GrantRecord {
        GrantRecord(
            appID: app.id, userID: user.id, granted: granted, declined: declined, createdAt: now, updatedAt: now,
            lastLoginAt: now, defaultAudience: audience)
    }

    @Test func catalogueSeparatesPublishPermissions() {
        for name in ["publish_actions", "publish_pages", "manage_pages", "publish_video", "ads_management"] {
            #expect(Permission.isPublish(name), "\(name)")
            #expect(Permission.info(name) != nil, "\(name)")
        }
        for name in ["public_profile", "email", "user_posts", "pages_show_list", "pages_manage_posts"] {
            #expect(!Permission.isPublish(name), "\(name)")
        }
        #expect(Permission.info("publish_pages")?.isPublish == true)
        #expect(Permission.info("email")?.isPublish == false)
    }

    @Test func mixedRequestAsksReadFirstThenPublish() {
        let f = facts("email,publish_actions", audience: .onlyMe)
        guard case .showConsent(let plan) = LoginAttempt.next(f) else { Issue.record("expected the read step"); return }
        #expect(plan.ask == ["public_profile", "email"])
        #expect(plan.publish == ["publish_actions"])
        #expect(plan.audience == .onlyMe)
        #expect(
            LoginAttempt.afterReadConsent(f, plan: plan, selected: ["public_profile", "email"])
                == .showPublishConsent(plan))
        let decision = LoginAttempt.decide(
            f, plan: plan, selected: ["public_profile", "email", "publish_actions"], audience: .everyone)
        #expect(decision.granted == ["public_profile", "email", "publish_actions"])
        #expect(decision.defaultAudience == .everyone)
        // Without a pick, the preselected audience is recorded.
        #expect(LoginAttempt.decide(f, plan: plan, selected: ["publish_actions"]).defaultAudience == .onlyMe)
    }

    @Test func publishOnlyRequestGoesStraightToThePublishStep() {
        let f = facts("publish_actions", grant: grant(["public_profile", "email"]))
        guard case .showPublishConsent(let plan) = LoginAttempt.next(f) else {
            Issue.record("expected the publish step"); return
        }
        #expect(plan.ask.isEmpty)
        #expect(plan.publish == ["publish_actions"])
        // Skip: publish declined, read grants kept, no audience.
        let skipped = LoginAttempt.decide(f, plan: plan, selected: [], audience: .everyone)
        #expect(skipped.granted == ["public_profile", "email"])
        #expect(skipped.declined == ["publish_actions"])
        #expect(skipped.deniedThisTime == ["publish_actions"])
        #expect(skipped.defaultAudience == nil)
    }

    @Test func readOnlyRequestsKeepTheStoredAudienceAndNoPublishStep() {
        let f = facts("email,user_posts", grant: grant(["public_profile", "publish_actions"], audience: .onlyMe))
        guard case .showConsent(let plan) = LoginAttempt.next(f) else { Issue.record("expected the read step"); return }
        #expect(plan.publish.isEmpty)
        guard case .complete(let decision) = LoginAttempt.afterReadConsent(f, plan: plan, selected: ["email"]) else {
            Issue.record("expected completion"); return
        }
        #expect(decision.granted == ["public_profile", "publish_actions", "email"])
        #expect(decision.declined == ["user_posts"])
        #expect(decision.defaultAudience == .onlyMe)
        // A declined publish permission is asked again only with rerequest.
        let declined = facts("publish_actions", grant: grant(["public_profile"], declined: ["publish_actions"]))
        guard case .complete = LoginAttempt.next(declined) else { Issue.record("expected no dialog"); return }
        let rerequest = facts(
            "publish_actions", grant: grant(["public_profile"], declined: ["publish_actions"]), authType: .rerequest)
        guard case .showPublishConsent = LoginAttempt.next(rerequest) else {
            Issue.record("expected the publish step"); return
        }
    }

    @Test func dialogShowsThePublishStepAndStoresTheAudience() async throws {
        let server = try await TestServer.make(approved: ["user_friends", "publish_actions"])
        try await server.run { client in
            let browser = Browser(client)
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI),
                ("scope", "email,publish_actions"),
                ("response_type", "token"), ("default_audience", "only_me"), ("return_scopes", "true"),
            ])
            var page = try await browser.get("/dialog/oauth?" + query)
            page = try await browser.get(
                try await browser.submitLogin(page: page, email: "alice@example.com", password: "alice-password")
                    .location!)
            // Step 1: read permissions only.
            #expect(Browser.offered(in: page.text) == ["public_profile", "email"])
            #expect(!page.text.contains("perm-publish_actions"))
            let step2 = try await browser.submitConsent(page: page, permissions: ["public_profile", "email"])
            #expect(step2.status == .ok)
            #expect(step2.text.contains("action=\"/dialog/oauth/publish\""))
            #expect(step2.text.contains("<label for=\"audience\">"))
            #expect(step2.text.contains("<option value=\"only_me\" selected>Only me</option>"))
            #expect(Browser.values(named: "read", in: step2.text) == ["public_profile", "email"])
            #expect(Browser.offered(in: step2.text) == ["publish_actions"])
            // A forged form is refused.
            let forged = try await browser.post(
                "/dialog/oauth/publish",
                form: [("csrf_token", "x"), ("dialog", query), ("permission", "publish_actions")])
            #expect(forged.status == .forbidden)

            let done = try await browser.submitPublish(
                page: step2, permissions: ["publish_actions"], audience: "everyone")
            #expect(done.status == .seeOther)
            let params = redirectParameters(done.location!)
            #expect(params["granted_scopes"] == "public_profile,email,publish_actions")
            #expect(params["denied_scopes"] == "")
            let grant = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(grant?.defaultAudience == .everyone)

            // debug_token reports the audience while a publish permission is granted.
            let debug = try await client.execute(
                uri: "/debug_token?"
                    + FormEncoding.encode([("input_token", params["access_token"]!), ("access_token", server.appToken)]),
                method: .get)
            #expect(debug.json["data"]?["metadata"] == .object(["default_audience": "everyone", "sso": "dialog"]))
            #expect(debug.json["data"]?["scopes"] == ["public_profile", "email", "publish_actions"])
        }
    }

    @Test func skippingThePublishStepDeclinesAndKeepsTheReadGrants() async throws {
        let server = try await TestServer.make(approved: ["user_friends", "publish_actions"])
        try await server.run { client in
            let browser = Browser(client)
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("scope", "publish_actions"),
                ("return_scopes", "true"),
            ])
            var page = try await browser.get("/dialog/oauth?" + query)
            page = try await browser.get(
                try await browser.submitLogin(page: page, email: "bob@example.com", password: "bob-password").location!)
            // A first login: public_profile on the read step, then the publish step.
            #expect(Browser.offered(in: page.text) == ["public_profile"])
            let step2 = try await browser.submitConsent(page: page, permissions: ["public_profile"])
            let done = try await browser.submitPublish(
                page: step2, permissions: ["publish_actions"], audience: "everyone", skip: true)
            let params = redirectParameters(done.location!)
            #expect(params["granted_scopes"] == "public_profile")
            #expect(params["denied_scopes"] == "publish_actions")
            #expect(params["code"] != nil)
            let grant = try await server.services.storage.grants.find(appID: server.app.id, userID: server.bob.id)
            #expect(grant?.declined == ["publish_actions"])
            #expect(grant?.defaultAudience == nil)
        }
    }

    @Test func unapprovedPublishPermissionIsUnavailableToStrangers() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("scope", "publish_actions"),
                ("return_scopes", "true"),
            ])
            let location = try await browser.logIn(query: query, email: "alice@example.com", password: "alice-password")
            #expect(redirectParameters(location)["denied_scopes"] == "publish_actions")
        }
    }
}
