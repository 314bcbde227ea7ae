import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 28, item 2: admin tokens. Stored hashed, sent as `Authorization: Bearer`; in production mode every admin
/// API route (v1 and the older ones) takes an admin session or a live token and nothing else.
@Suite struct AdminTokenAuthTests {
    static func production() async throws -> TestServer {
        try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
    }

    static func bearer(_ token: String, json: Bool = false) -> HTTPFields {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if json { headers[.contentType] = "application/json" }
        return headers
    }

    @Test func aTokenIsShownOnceAndStoredOnlyAsItsSHA256() async throws {
        let server = try await TestServer.make()
        let created = try await AdminTokens(services: server.services).create(name: "ci", readOnly: false)
        #expect(created.token.hasPrefix("gha_"))
        #expect(created.token.count == 4 + 43)
        #expect(created.record.tokenHash == SecretHash.sha256Hex(created.token))
        #expect(created.record.displayPrefix == String(created.token.prefix(12)))
        let stored = try await server.services.storage.admins.listTokens()
        #expect(stored == [created.record])
        // Nothing stored holds the token itself.
        let file = try Data(contentsOf: URL(fileURLWithPath: server.services.configuration.databasePath))
        #expect(file.range(of: Data(created.token.utf8)) == nil)
        #expect(try await AdminTokens(services: server.services).authenticate(created.token) == created.record)
        try await server.close()
    }

    @Test func productionRefusesTheAdminAPIWithoutASessionOrALiveToken() async throws {
        let server = try await Self.production()
        let token = try await AdminTokens(services: server.services).create(name: "ci", readOnly: false).token
        try await server.run { client in
            let none = try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.contentType] == "application/problem+json")
            #expect(
                none.json == [
                    "type": "https://gatehouse.dev/problems/unauthorized", "title": "Authentication is required",
                    "status": 401,
                    "detail": "send an admin token (Authorization: Bearer gha_…) or log in at /console/login",
                ])
            for wrong in ["gha_guess", "not-a-token", token + "x", "Basic " + token] {
                let headers: HTTPFields = [.authorization: wrong.hasPrefix("Basic") ? wrong : "Bearer \(wrong)"]
                let refused = try await client.execute(
                    uri: "/admin/api/v1/admin-tokens", method: .get, headers: headers)
                #expect(refused.status == .unauthorized, "\(wrong)")
                #expect(refused.json["detail"] == "the admin token is unknown or revoked")
            }
            let allowed = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(token))
            #expect(allowed.status == .ok)
            #expect(allowed.json["data"]?.arrayValue?.first?["name"] == "ci")
            #expect(allowed.json["data"]?.arrayValue?.first?["token"] == nil)
            #expect(allowed.json["next_cursor"] == .null)
            // Every v1 route takes the same token, and refuses without it.
            #expect(try await client.execute(uri: "/admin/api/v1/clock", method: .get).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/admin/api/v1/clock", method: .get, headers: Self.bearer("gha_guess"))
                    .status == .unauthorized)
            let clock = try await client.execute(uri: "/admin/api/v1/clock", method: .get, headers: Self.bearer(token))
            #expect(clock.status == .ok)
            #expect(clock.json["controllable"] == true)
            // The retired route answers the same 410 with the token or without it.
            for headers in [HTTPFields(), Self.bearer(token), Self.bearer("gha_guess")] {
                #expect(
                    try await client.execute(uri: "/admin/api/clock", method: .get, headers: headers).status == .gone)
            }
            // A token opens the API, not the console's pages.
            let console = try await client.execute(uri: "/console/apps", method: .get, headers: Self.bearer(token))
            #expect(console.status == .seeOther)
        }
    }

    @Test func aReadOnlyTokenReadsButEveryWriteIs403() async throws {
        let server = try await Self.production()
        let token = try await AdminTokens(services: server.services).create(name: "dashboard", readOnly: true).token
        server.clock.advance(by: 3600)
        try await server.run { client in
            #expect(
                try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(token))
                    .status == .ok)
            let create = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .post, headers: Self.bearer(token, json: true),
                body: ByteBuffer(string: #"{"name":"sneaky"}"#))
            #expect(create.status == .forbidden)
            #expect(
                create.json == [
                    "type": "https://gatehouse.dev/problems/forbidden", "title": "Not allowed", "status": 403,
                    "detail": "this admin token is read-only",
                ])
            let reset = try await client.execute(
                uri: "/admin/api/v1/clock/reset", method: .post, headers: Self.bearer(token, json: true),
                body: ByteBuffer(string: "{}"))
            #expect(reset.status == .forbidden)
            #expect(reset.json == create.json)
            // Nothing changed: no token made, the clock still moved.
            #expect(try await server.services.storage.admins.listTokens().map(\.name) == ["dashboard"])
            #expect(server.clock.currentOffset == 3600)
        }
    }

    @Test func aRevokedTokenIsRefusedFromThenOn() async throws {
        let server = try await Self.production()
        let tokens = AdminTokens(services: server.services)
        let ci = try await tokens.create(name: "ci", readOnly: false)
        let other = try await tokens.create(name: "other", readOnly: false)
        try await server.run { client in
            let revoke = try await client.execute(
                uri: "/admin/api/v1/admin-tokens/\(other.record.id)", method: .delete, headers: Self.bearer(ci.token))
            #expect(revoke.status == .noContent)
            let refused = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(other.token))
            #expect(refused.status == .unauthorized)
            let again = try await client.execute(
                uri: "/admin/api/v1/admin-tokens/\(other.record.id)", method: .delete, headers: Self.bearer(ci.token))
            #expect(again.status == .notFound)
            #expect(again.json["type"] == "https://gatehouse.dev/problems/not-found")
            let list = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(ci.token))
            #expect(list.json["data"]?.arrayValue?.map { $0["revoked_time"] == .null } == [true, false])
        }
    }

    @Test func creatingATokenOverTheAPIShowsItOnce() async throws {
        let server = try await Self.production()
        let ci = try await AdminTokens(services: server.services).create(name: "ci", readOnly: false)
        try await server.run { client in
            let made = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .post, headers: Self.bearer(ci.token, json: true),
                body: ByteBuffer(string: #"{"name":"nightly","read_only":true}"#))
            #expect(made.status == .created)
            let token = try #require(made.json["token"]?.stringValue)
            #expect(made.json["read_only"] == true)
            #expect(made.json["prefix"]?.stringValue == String(token.prefix(12)))
            #expect(
                try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(token))
                    .status == .ok)
            let listed = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .get, headers: Self.bearer(ci.token))
            #expect(!listed.text.contains(token))
            let unnamed = try await client.execute(
                uri: "/admin/api/v1/admin-tokens", method: .post, headers: Self.bearer(ci.token, json: true),
                body: ByteBuffer(string: #"{"name":"  "}"#))
            #expect(unnamed.status == .badRequest)
            #expect(unnamed.json["field"] == "name")
        }
    }

    @Test func developmentModeStaysOpenOnLoopback() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let tokens = try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get)
            let clock = try await client.execute(uri: "/admin/api/v1/clock", method: .get)
            #expect(tokens.status == .ok)
            #expect(clock.status == .ok)
        }
    }
}
