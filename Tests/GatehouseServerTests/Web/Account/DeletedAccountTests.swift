import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32: "deleted" as a state of its own on the wire. A deleted account's old tokens answer 190/458, as
/// Facebook answers once every app was removed from the account (deletion removes them all and sends each its
/// deauthorize callback); its address and password are refused in the dialog like an unknown account's. Each
/// refusal is explained in the journal; only hashes of the tokens and the address are kept.
@Suite struct DeletedAccountTests {
    static func body458(_ appID: String) -> String {
        #"{"error":{"message":"Error validating access token: The user has not authorized application \#(appID).","#
            + #""type":"OAuthException","code":190,"error_subcode":458}}"#
    }

    @Test func afterThePersonDeletesTheirAccountTheirTokensAnswer458AndTheDialogRefusesTheAddress() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            // Seen once, so a cached caller must not outlive the deletion either.
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
            let browser = Browser(client)
            let page = try await TwoFactorLoginTests.logInToSettings(browser)
            let deleted = try await browser.post(
                "/settings/account/delete",
                form: [
                    ("csrf_token", try #require(Browser.hiddenValue("csrf_token", in: page.text))),
                    ("password", "alice-password"),
                ])
            #expect(deleted.status == .ok)
            #expect(try await server.services.storage.users.find(id: server.alice.id) == nil)

            let (me, entry) = try await JournalExplanationPathTests.send(
                client, server, "/v27.0/me?access_token=\(token)")
            #expect(me.status == .badRequest)
            #expect(me.text == Self.body458(server.app.id))
            JournalExplanationPathTests.expectRefusal(
                (me, entry), code: 190, subcode: 458, "belongs to an account that was deleted on ")
            // Every call, not once.
            #expect(
                try await client.execute(uri: "/v27.0/me/friends?access_token=\(token)", method: .get).text
                    == Self.body458(server.app.id))
            let debug = try await client.execute(
                uri: "/v27.0/debug_token?input_token=\(token)&access_token=\(server.appToken)", method: .get)
            #expect(debug.json["data"]?["is_valid"]?.boolValue == false)
            #expect(debug.json["data"]?["error"]?["code"]?.intValue == 190)
            #expect(debug.json["data"]?["error"]?["subcode"]?.intValue == 458)

            // Nothing of the person is kept: the hashes of the token and the address only.
            let now = server.clock.now()
            let kept = try #require(
                try await server.services.storage.deletedAccounts?.find(
                    key: DeletedAccountRecord.tokenKey(tokenHash: SecretHash.sha256Hex(token)), now: now))
            #expect(kept.appID == server.app.id)
            #expect(
                try await server.services.storage.deletedAccounts?.find(
                    key: DeletedAccountRecord.emailKey("alice@example.com"), now: now) != nil)

            // The dialog: the deleted address and its password are refused exactly as an unknown address.
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let login = Browser(client)
            let form = try await login.get("/dialog/oauth?" + query)
            let refused = try await login.submitLogin(
                page: form, email: "alice@example.com", password: "alice-password")
            let refusedEntry = try #require(JournalExplanationPathTests.last(server))
            let unknown = try await login.submitLogin(
                page: form, email: "nobody@example.com", password: "alice-password")
            #expect(refused.status == .seeOther)
            #expect(refused.location == "/dialog/oauth?" + query + "&gh_login_error=1")
            #expect(unknown.status == refused.status)
            #expect(unknown.location == refused.location)
            #expect(login.cookie("gh_session") == nil)
            #expect(
                refusedEntry.explanation?.contains("the address belonged to an account that was deleted on ") == true,
                "\(refusedEntry.explanation ?? "")")
            let unknownEntry = try #require(JournalExplanationPathTests.last(server))
            #expect(unknownEntry.explanation == "the email or password was wrong; the login form is shown again")
        }
    }

    @Test func anAdministratorsDeletionAnswersTheSame() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.bob)
        var app = server.app
        app.dataDeletionCallbackURL = "https://app.example.com/deletion"
        try await server.services.storage.apps.update(app)
        try await server.run { client in
            let gone = try await client.execute(uri: "/admin/api/v1/people/\(server.bob.id)", method: .delete)
            #expect(gone.status == .noContent)
            // Every app Bob used is told, as after his own deletion.
            #expect(server.notifier.removed.map(\.appID) == [server.app.id])
            let queued = try await server.services.storage.appCallbacks.list(userID: server.bob.id, kind: .dataDeletion)
            #expect(queued.map(\.appID) == [server.app.id])
            #expect(
                try await client.execute(uri: "/admin/api/v1/people/\(server.bob.id)", method: .delete).status
                    == .notFound)
            let me = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.text == Self.body458(server.app.id))
            // A token that never existed still answers as garbage does.
            let never = try await client.execute(uri: "/v27.0/me?access_token=EAAGnothing", method: .get)
            #expect(never.json["error"]?["error_subcode"] == nil)
            #expect(
                never.json["error"]?["message"]?.stringValue == "Invalid OAuth access token - Cannot parse access token"
            )
        }
    }

    /// The app deleting its own test user through the Graph API (`DELETE /{test-user-id}`) is a deletion too.
    @Test func anAppDeletingItsTestUserAnswersTheSame() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let made = try await client.execute(
                uri: "/v27.0/\(server.app.id)/accounts/test-users?installed=true&access_token=\(server.appToken)",
                method: .post)
            #expect(made.status == .ok)
            let id = try #require(made.json["id"]?.stringValue)
            let token = try #require(made.json["access_token"]?.stringValue)
            #expect(try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .ok)
            let gone = try await client.execute(
                uri: "/v27.0/\(id)?access_token=\(server.appToken)", method: .delete)
            #expect(gone.text == #"{"success":true}"#)
            let me = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.status == .badRequest)
            #expect(me.text == Self.body458(server.app.id))
        }
    }

    /// The leftovers are forgotten: a token's at its own expiry, the address after 30 days.
    @Test func theLeftoversAreForgottenInTime() async throws {
        let server = try await TestServer.make()
        let short = try await server.token(for: server.alice, lifetime: 3600)
        try await AccountDeletion(services: server.services).delete(server.alice)
        let store = try #require(server.services.storage.deletedAccounts)
        let key = DeletedAccountRecord.tokenKey(tokenHash: SecretHash.sha256Hex(short))
        let now = server.clock.now()
        #expect(try await store.find(key: key, now: now)?.forgetAt == now.addingTimeInterval(3600))
        #expect(try await store.find(key: key, now: now.addingTimeInterval(3600)) == nil)
        #expect(try await store.forget(before: now.addingTimeInterval(3600)) == 1)
        let email = DeletedAccountRecord.emailKey("alice@example.com")
        #expect(try await store.find(key: email, now: now.addingTimeInterval(29 * 86_400)) != nil)
        #expect(try await store.forget(before: now.addingTimeInterval(30 * 86_400)) == 1)
        #expect(try await store.find(key: email, now: now) == nil)
    }
}
