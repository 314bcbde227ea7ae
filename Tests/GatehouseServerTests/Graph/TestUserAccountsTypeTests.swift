import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// `/{app-id}/accounts?type=test-users` is the test-users edge: Facebook's reference documents the edge as
/// `/{application-id}/accounts` with `type` (enum `test-users`), and its generated Business SDKs
/// (`Application.get_accounts`, `create_account`, `delete_accounts`) call it so. It answers as
/// `/{app-id}/accounts/test-users` does; `/{app-id}/accounts` without that type answers as before.
@Suite struct TestUserAccountsTypeTests {
    @Test func theTypedEdgeCreatesAndListsAsTheDocumentedPath() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let app = server.app.id
            let token = server.appToken
            let made = try await TestUserAPITests.call(
                client, .post, "/v27.0/\(app)/accounts",
                [("type", "test-users"), ("installed", "true"), ("name", "Tia Typed"), ("access_token", token)])
            #expect(made.status == .ok)
            #expect(made.json.objectValue?.pairs.map(\.0) == ["id", "access_token", "login_url", "email", "password"])
            let first = try #require(made.json["id"]?.stringValue)
            let (second, _) = try await TestUserAPITests.created(server, client)

            let typed = try await TestUserAPITests.call(
                client, .get, "/v27.0/\(app)/accounts",
                [("type", "test-users"), ("limit", "1"), ("access_token", token)])
            let documented = try await TestUserAPITests.call(
                client, .get, "/v27.0/\(app)/accounts/test-users", [("limit", "1"), ("access_token", token)])
            for answer in [typed, documented] {
                #expect(answer.status == .ok)
                #expect(answer.json["data"]?.arrayValue?.count == 1)
                #expect(answer.json["data"]?[0]?.objectValue?.pairs.map(\.0) == ["id", "login_url", "access_token"])
                #expect(answer.json["data"]?[0]?["id"]?.stringValue == first)
            }
            // Its next page is the documented path's, as Facebook's own answers name one path for the edge.
            let cursor = UserEndpoints.cursor(0)
            let next =
                "http://gatehouse.test/v27.0/\(app)/accounts/test-users?"
                + FormEncoding.encode([("access_token", token), ("limit", "1"), ("after", cursor)])
            let paging: JSONValue = [
                "cursors": ["before": .string(cursor), "after": .string(cursor)], "next": .string(next),
            ]
            #expect(typed.json["paging"] == paging)
            #expect(documented.json["paging"] == paging)
            let page2 = try await TestUserAPITests.call(
                client, .get, "/v27.0/\(app)/accounts",
                [("type", "test-users"), ("limit", "1"), ("after", cursor), ("access_token", token)])
            #expect(page2.json["data"]?[0]?["id"]?.stringValue == second)
        }
    }

    @Test func theTypedEdgeAsksForTheAppsTokenAsTheDocumentedPathDoes() async throws {
        let server = try await TestServer.make()
        let alice = try await server.token(for: server.alice)
        try await server.run { client in
            let app = server.app.id
            let typed = try await TestUserAPITests.call(
                client, .get, "/v27.0/\(app)/accounts", [("type", "test-users"), ("access_token", alice)])
            let documented = try await TestUserAPITests.call(
                client, .get, "/v27.0/\(app)/accounts/test-users", [("access_token", alice)])
            for answer in [typed, documented] {
                #expect(answer.status == .badRequest)
                #expect(
                    answer.text
                        == #"{"error":{"message":"(#15) This method must be called with an app access_token.","#
                        + #""type":"OAuthException","code":15}}"#)
            }
        }
    }

    @Test func withoutTheTypeTheEdgeAnswersAsBefore() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let app = server.app.id
            for params in [
                [("access_token", server.appToken)], [("type", "pages"), ("access_token", server.appToken)],
            ] {
                let r = try await TestUserAPITests.call(client, .get, "/v27.0/\(app)/accounts", params)
                #expect(r.status == .badRequest)
                #expect(
                    r.text
                        == #"{"error":{"message":"Unknown path components: /accounts","type":"OAuthException","code":2500}}"#
                )
            }
        }
    }
}
