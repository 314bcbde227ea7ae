import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 28, item 2: every change made through the admin API or the console is in the audit log (who, what,
/// when), readable at `GET /admin/api/v1/audit`; admin tokens never reach the logs or the request journal.
@Suite struct AdminAuditTests {
    @Test func changesThroughTheAPINameTheTokenTheRouteAndTheTarget() async throws {
        let server = try await AdminTokenAuthTests.production()
        let ci = try await AdminTokens(services: server.services).create(name: "ci", readOnly: false)
        let doomed = try await AdminTokens(services: server.services).create(name: "doomed", readOnly: false)
        try await server.run { client in
            let json = AdminTokenAuthTests.bearer(ci.token, json: true)
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/clock/advance", method: .post, headers: json,
                    body: ByteBuffer(string: #"{"by":"1d"}"#)
                ).status == .ok)
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/admin-tokens/\(doomed.record.id)", method: .delete, headers: json
                ).status == .noContent)
            // Refused and read-only requests change nothing and are not recorded.
            #expect(
                try await client.execute(uri: "/admin/api/v1/admin-tokens/nope", method: .delete, headers: json).status
                    == .notFound)
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/clock/reset", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: "{}")
                ).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get, headers: json).status == .ok)

            let audit = try await client.execute(
                uri: "/admin/api/v1/audit", method: .get, headers: AdminTokenAuthTests.bearer(ci.token))
            #expect(audit.status == .ok)
            // The test clock (1_800_000_000, 2027-01-15T08:00:00Z) moved a day by the first change, recorded after it.
            let time = "2027-01-16T08:00:00Z"
            let actor: JSONValue = ["kind": "token", "id": .string(ci.record.id), "name": "ci"]
            #expect(
                audit.json == [
                    "data": [
                        [
                            "id": "2", "time": .string(time), "actor": actor, "method": "DELETE",
                            "route": "/admin/api/v1/admin-tokens/{id}",
                            "target": .string(doomed.record.id), "status": 204,
                        ],
                        [
                            "id": "1", "time": .string(time), "actor": actor, "method": "POST",
                            "route": "/admin/api/v1/clock/advance",
                            "target": .null, "status": 200,
                        ],
                    ],
                    "next_cursor": .null,
                ])
            // Paged newest first: the cursor leads to the older entry.
            let first = try await client.execute(
                uri: "/admin/api/v1/audit?limit=1", method: .get, headers: AdminTokenAuthTests.bearer(ci.token))
            #expect(first.json["data"]?.arrayValue?.map { $0["id"] } == ["2"])
            let cursor = try #require(first.json["next_cursor"]?.stringValue)
            let second = try await client.execute(
                uri: "/admin/api/v1/audit?limit=1&cursor=\(cursor)", method: .get,
                headers: AdminTokenAuthTests.bearer(ci.token))
            #expect(second.json["data"]?.arrayValue?.map { $0["id"] } == ["1"])
            #expect(second.json["next_cursor"] == .null)
            let bad = try await client.execute(
                uri: "/admin/api/v1/audit?cursor=zzz", method: .get, headers: AdminTokenAuthTests.bearer(ci.token))
            #expect(bad.status == .badRequest)
            #expect(bad.json["field"] == "cursor")
        }
    }

    @Test func aConsoleAdministratorsChangesNameTheAdministrator() async throws {
        let server = try await AdminTokenAuthTests.production()
        let admin = try await AdminAccounts(services: server.services).create(
            email: "ops@example.com", password: "a long admin password")
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/login")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            _ = try await browser.post(
                "/console/login",
                form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", "a long admin password")])
            var headers = browser.cookieHeaders()
            headers[.contentType] = "application/json"
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/clock/advance", method: .post, headers: headers,
                    body: ByteBuffer(string: #"{"by":"2h"}"#)
                ).status == .ok)
            let entries = try await server.services.storage.admins.audit(before: nil, limit: 10)
            #expect(entries.map(\.actorKind) == ["administrator"])
            #expect(entries.first?.actorID == admin.id)
            #expect(entries.first?.actorName == "ops@example.com")
            #expect(entries.first?.route == "/admin/api/v1/clock/advance")
        }
    }

    @Test func developmentChangesWithoutCredentialsAreRecordedAsDevelopment() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let r = try await client.execute(
                uri: "/admin/api/v1/clock/advance", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"by":"1h"}"#))
            #expect(r.status == .ok)
            let audit = try await client.execute(uri: "/admin/api/v1/audit", method: .get)
            #expect(
                audit.json["data"]?.arrayValue?.first?["actor"] == ["kind": "development", "id": .null, "name": .null])
        }
    }

    @Test func adminTokensNeverReachTheLogsOrTheJournal() async throws {
        let logs = CapturedLogs()
        let server = try await TestServer.make(
            configure: {
                $0.mode = .production; $0.publicURL = "https://gatehouse.test"; $0.journal = true
            }, logger: logs.logger)
        let created = try await AdminTokens(services: server.services).create(name: "ci", readOnly: false)
        try await server.run { client in
            let bearer = AdminTokenAuthTests.bearer(created.token, json: true)
            #expect(
                try await client.execute(uri: "/admin/api/v1/admin-tokens", method: .get, headers: bearer).status == .ok
            )
            #expect(
                try await client.execute(
                    uri: "/admin/api/v1/clock/advance", method: .post, headers: bearer,
                    body: ByteBuffer(string: #"{"by":"1h"}"#)
                ).status == .ok)
            // Sent by mistake where a user access token belongs: a Graph call and the token endpoint.
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .badRequest)
            #expect(
                try await client.execute(uri: "/me?access_token=\(created.token)", method: .get).status == .badRequest)
            let journal = try await client.execute(
                uri: "/admin/api/v1/journal?limit=100", method: .get, headers: bearer)
            #expect(journal.status == .ok)
            #expect((journal.json["data"]?.arrayValue?.count ?? 0) >= 2)
            #expect(!journal.text.contains(created.token))
            #expect(!journal.text.contains(String(created.token.dropFirst(4).prefix(16))))
        }
        #expect(!logs.all.isEmpty)
        for line in logs.all { #expect(!line.contains(created.token.dropFirst(4).prefix(16)), "\(line)") }
    }
}
