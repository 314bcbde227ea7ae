import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 39, findings 1, 4 and 11: what each kind of admin credential may read and do in production mode.
///
/// - A read-only token (a dashboard, a CI check) reads no secret that allows writing: no app secret or client
///   token, no state export (password hashes, keys), no mail body or link.
/// - A write token reads them, and each such read is in the audit log.
/// - Production refuses whole-state reset and import unless the operator turned them on.
/// - No admin route answers whether a guessed password is someone's.
@Suite struct AdminReadScopeTests {
    static func production(allowStateReplace: Bool = false) async throws -> TestServer {
        try await TestServer.make(configure: {
            $0.mode = .production
            $0.publicURL = "https://gatehouse.test"
            $0.allowStateReplace = allowStateReplace
        })
    }

    static func headers(_ token: String, json: Bool = false) -> HTTPFields {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if json { headers[.contentType] = "application/json" }
        return headers
    }

    @Test func aReadOnlyTokenReadsNoSecretThatAllowsWriting() async throws {
        let server = try await Self.production()
        let tokens = AdminTokens(services: server.services)
        let reader = try await tokens.create(name: "dashboard", readOnly: true).token
        let writer = try await tokens.create(name: "ops", readOnly: false).token
        let outbox = try #require(server.services.mail)
        let mail = try await outbox.enqueue(
            kind: "reset_password", userID: server.alice.id, to: "alice@example.com", subject: "Reset",
            text: "Choose a new password: https://gatehouse.test/account/reset?c=SECRETCODE", html: "<p>SECRETCODE</p>")
        try await server.run { client in
            func get(_ path: String, _ token: String) async throws -> TestResponse {
                try await client.execute(uri: path, method: .get, headers: Self.headers(token))
            }
            // Apps: the read-only token sees everything but the two credentials.
            let apps = try await get("/admin/api/v1/apps", reader)
            #expect(apps.status == .ok)
            let listed = try #require(apps.json["data"]?.arrayValue?.first)
            #expect(listed["id"] == .string(server.app.id))
            #expect(listed["secret"] == nil)
            #expect(listed["client_token"] == nil)
            #expect(!apps.text.contains(server.app.secret))
            let one = try await get("/admin/api/v1/apps/\(server.app.id)", reader)
            #expect(one.status == .ok)
            #expect(one.json["secret"] == nil)
            #expect(one.json["name"] == "Test App")
            #expect(!one.text.contains(server.app.clientToken))

            // The state export (password hashes, token hashes, app secrets, private keys): refused, with or
            // without the keys.
            for path in ["/admin/api/v1/state", "/admin/api/v1/state?include_private_keys=true"] {
                let refused = try await get(path, reader)
                #expect(refused.status == .forbidden, "\(path)")
                #expect(!refused.text.contains("$2"), "\(path)")
                #expect(!refused.text.contains(server.app.secret), "\(path)")
            }
            #expect(
                try await get("/admin/api/v1/state", reader).json["detail"]
                    == "a read-only admin token cannot read this: it holds secrets that allow writing")

            // Mail: who was sent what and when, not the bodies or their links.
            let list = try await get("/admin/api/v1/mail?to=alice@example.com", reader)
            #expect(list.status == .ok)
            let message = try #require(list.json["data"]?.arrayValue?.first)
            #expect(message["id"] == .string(mail.id))
            #expect(message["subject"] == "Reset")
            #expect(message["text"] == nil)
            #expect(message["html"] == nil)
            #expect(message["links"] == nil)
            #expect(!list.text.contains("SECRETCODE"))
            let single = try await get("/admin/api/v1/mail/\(mail.id)", reader)
            #expect(single.status == .ok)
            #expect(!single.text.contains("SECRETCODE"))

            // Reads of secrets leave nothing in the audit log when refused or redacted.
            #expect(try await server.services.storage.admins.audit(before: nil, limit: 50).isEmpty)

            // A write token reads them all, and each of those reads is audited.
            let full = try await get("/admin/api/v1/apps/\(server.app.id)", writer)
            #expect(full.json["secret"] == .string(server.app.secret))
            #expect(full.json["client_token"] == .string(server.app.clientToken))
            #expect(try await get("/admin/api/v1/mail/\(mail.id)", writer).text.contains("SECRETCODE"))
            #expect(try await get("/admin/api/v1/state?include_private_keys=true", writer).status == .ok)
            // An ordinary read is not a read of a secret.
            #expect(try await get("/admin/api/v1/people", writer).status == .ok)
            let audit = try await server.services.storage.admins.audit(before: nil, limit: 50)
            #expect(
                audit.reversed().map { "\($0.method) \($0.route) \($0.target ?? "-") \($0.actorName ?? "-")" } == [
                    "GET /admin/api/v1/apps/{id} \(server.app.id) ops",
                    "GET /admin/api/v1/mail/{id} \(mail.id) ops",
                    "GET /admin/api/v1/state - ops",
                ])
        }
    }

    @Test func productionRefusesWholeStateResetAndImportUnlessTurnedOn() async throws {
        let server = try await Self.production()
        let writer = try await AdminTokens(services: server.services).create(name: "ops", readOnly: false).token
        try await server.run { client in
            let export = try await client.execute(
                uri: "/admin/api/v1/state", method: .get, headers: Self.headers(writer))
            #expect(export.status == .ok)
            let refusals = [
                (HTTPRequest.Method.post, "/admin/api/v1/state/reset", #"{"to":"seed"}"#),
                (.post, "/admin/api/v1/state/reset", #"{"to":"empty"}"#),
                (.put, "/admin/api/v1/state", export.text),
            ]
            for (method, path, body) in refusals {
                let refused = try await client.execute(
                    uri: path, method: method, headers: Self.headers(writer, json: true),
                    body: ByteBuffer(string: body))
                #expect(refused.status == .forbidden, "\(method) \(path)")
                #expect(refused.text.contains("allow_state_replace"), "\(method) \(path)")
            }
            // Nothing was wiped, and no published seed password exists.
            #expect(try await server.services.storage.users.find(id: server.alice.id) != nil)
            #expect(try await server.services.storage.users.find(email: "alice@gatehouse.test") == nil)
        }

        let allowed = try await Self.production(allowStateReplace: true)
        let token = try await AdminTokens(services: allowed.services).create(name: "ops", readOnly: false).token
        try await allowed.run { client in
            let reset = try await client.execute(
                uri: "/admin/api/v1/state/reset", method: .post, headers: Self.headers(token, json: true),
                body: ByteBuffer(string: #"{"to":"empty"}"#))
            #expect(reset.status == .ok)
            #expect(reset.json["people"] == 0)
        }
    }

    @Test func noAdminRouteTellsWhetherAGuessedPasswordIsRight() async throws {
        let server = try await Self.production()
        let writer = try await AdminTokens(services: server.services).create(name: "ops", readOnly: false).token
        try await server.run { client in
            func create(_ password: String) async throws -> TestResponse {
                let body: JSONValue = [
                    "id": .string(server.alice.id), "email": "alice@example.com", "first_name": "Alice",
                    "last_name": "Anders", "password": .string(password),
                ]
                return try await client.execute(
                    uri: "/admin/api/v1/people", method: .post, headers: Self.headers(writer, json: true),
                    body: ByteBuffer(string: body.serialized()))
            }
            let right = try await create("alice-password")
            let wrong = try await create("wrong-guess")
            // The same answer, right or wrong: the body names a password, and production never compares one.
            #expect(right.status == .conflict)
            #expect(wrong.status == .conflict)
            #expect(right.text == wrong.text)
            #expect(right.json["field"] == "password")
        }
    }
}
