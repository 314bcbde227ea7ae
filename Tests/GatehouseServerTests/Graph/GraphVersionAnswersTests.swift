import Foundation
import GatehouseCore
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import GatehouseServer

/// What Facebook answered differently at the seeds' Graph API versions (v1.0-v2.3) and answers today:
/// the bare `true` of a successful removal, and the extended permissions removed in v2.4.
@Suite struct GraphVersionAnswersTests {
    static let seedPermissions = ["user_likes", "user_birthday", "user_interests", "read_stream"]

    @Test func removalsAnswerABareTrueBeforeV21AndASuccessObjectFromV21() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(
            for: server.alice, granted: ["public_profile", "email", "user_friends", "publish_actions"])
        let scoped = try await server.scopedID(server.alice)
        try await server.run { client in
            let old = try await client.execute(
                uri: "/v2.0/me/permissions/publish_actions?access_token=\(token)", method: .delete)
            #expect(old.status == .ok)
            #expect(old.text == "true")
            #expect(
                old.headers[.contentType] == "application/json; charset=UTF-8"
                    || old.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(old.headers[HTTPField.Name("facebook-api-version")!] == "v2.0")
            let v1 = try await client.execute(
                uri: "/v1.0/me/permissions/user_friends?access_token=\(token)", method: .delete)
            #expect(v1.text == "true")
            let new = try await client.execute(uri: "/v2.1/me/permissions/email?access_token=\(token)", method: .delete)
            #expect(new.text == #"{"success":true}"#)
            let list = try await client.execute(uri: "/me/permissions?access_token=\(token)", method: .get)
            #expect(
                list.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},"#
                    + #"{"permission":"publish_actions","status":"declined"},{"permission":"user_friends","#
                    + #""status":"declined"},{"permission":"email","status":"declined"}]}"#
            )
            // Errors keep their shape at every version.
            let unknown = try await client.execute(
                uri: "/v2.0/me/permissions/email?access_token=nonsense", method: .delete)
            #expect(unknown.json["error"]?["code"]?.intValue == 190)
            // Removing the app: `true` at v2.0 too.
            let removed = try await client.execute(
                uri: "/v2.0/\(scoped)/permissions?access_token=\(token)", method: .delete)
            #expect(removed.text == "true")
        }
    }

    @Test func unversionedRemovalAnswersAsTodaysVersion() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        try await server.run { client in
            let r = try await client.execute(uri: "/me/permissions/email?access_token=\(token)", method: .delete)
            #expect(r.text == #"{"success":true}"#)
        }
    }

    @Test func removedPermissionsAreRefusedWithFacebooksErrorFromV24() async throws {
        let server = try await TestServer.make(approved: Self.seedPermissions)
        try await server.run { client in
            for path in ["/v2.4/dialog/oauth", "/v27.0/dialog/oauth", "/dialog/oauth"] {
                let scope = ("scope", (["email"] + Self.seedPermissions).joined(separator: ","))
                let page = try await client.execute(
                    uri: path + "?" + DialogFlowTests.query(server, [scope]), method: .get)
                #expect(page.status == .badRequest)
                #expect(page.headers[.location] == nil)
                #expect(
                    page.text.contains(
                        "Invalid Scopes: user_interests, read_stream. This message is only shown to developers. "
                            + "Users of your app will ignore these permissions if present. Please read the "
                            + "documentation for valid permissions at: https://developers.facebook.com/docs/facebook-login/permissions"
                    ))
            }
            // Names that never existed are still refused the way they were.
            let bogus = try await client.execute(
                uri: "/v2.0/dialog/oauth?" + DialogFlowTests.query(server, [("scope", "not_a_permission")]),
                method: .get)
            #expect(bogus.status == .badRequest)
            #expect(bogus.text.contains("Invalid Scopes: not_a_permission"))
        }
    }

    @Test func deviceLoginAndTestUsersRefuseRemovedPermissionsFromV24() async throws {
        let server = try await TestServer.make()
        let clientToken = "\(server.app.id)|\(server.app.clientToken)"
        try await server.run { client in
            let today = try await DeviceFlowTests.post(
                client, "/v27.0/device/login", [("access_token", clientToken), ("scope", "email,read_stream")])
            #expect(
                today.text
                    == #"{"error":{"message":"(#100) Invalid Scopes: read_stream","type":"OAuthException","code":100}}"#
            )
            let then = try await DeviceFlowTests.post(
                client, "/v2.3/device/login", [("access_token", clientToken), ("scope", "email,read_stream")])
            #expect(then.status == .ok)
            #expect(then.json["user_code"]?.stringValue != nil)

            let refused = try await client.execute(
                uri:
                    "/v27.0/\(server.app.id)/accounts/test-users?permissions=user_interests&access_token=\(server.appToken)",
                method: .post)
            #expect(refused.json["error"]?["code"]?.intValue == 100)
            #expect(
                refused.json["error"]?["message"]?.stringValue?.contains("Invalid permission: user_interests") == true)
            let created = try await client.execute(
                uri:
                    "/v2.3/\(server.app.id)/accounts/test-users?permissions=user_interests&access_token=\(server.appToken)",
                method: .post)
            #expect(created.status == .ok)
        }
    }

    @Test func removedPermissionsAreGrantedAtTheSeedsVersions() async throws {
        let server = try await TestServer.make(approved: Self.seedPermissions)
        try await server.run { client in
            let browser = Browser(client)
            let scope = Self.seedPermissions.joined(separator: ",")
            let page = try await browser.get(
                "/v2.3/dialog/oauth?" + DialogFlowTests.query(server, [("scope", scope), ("return_scopes", "true")]))
            #expect(page.status == .ok)
            let posted = try await browser.submitLogin(
                page: page, email: "alice@example.com", password: "alice-password")
            #expect(posted.status == .seeOther)
            // The login form returns to the unversioned dialog, which still answers as v2.3.
            #expect(posted.location?.contains("graph_api_version=v2.3") == true)
            let consent = try await browser.get(posted.location!)
            #expect(consent.status == .ok)
            #expect(Browser.offered(in: consent.text) == ["public_profile"] + Self.seedPermissions)
            let done = try await browser.submitConsent(
                page: consent, permissions: ["public_profile"] + Self.seedPermissions)
            let params = redirectParameters(try #require(done.location))
            #expect(params["granted_scopes"] == (["public_profile"] + Self.seedPermissions).joined(separator: ","))
            let stored = try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)
            #expect(stored?.granted == ["public_profile"] + Self.seedPermissions)
        }
    }
}
