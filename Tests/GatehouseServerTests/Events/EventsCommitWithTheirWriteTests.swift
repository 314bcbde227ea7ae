import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SQLiteKit
import SQLiteNIO
import Testing

/// Issue 43: a token route's events are written in the transaction of the write they announce, so the route pays
/// one commit, and a write is never stored without its events (nor its events without the write). Shown here by
/// making the database refuse one event type: the whole write then fails and nothing of it stays.
@Suite struct EventsCommitWithTheirWriteTests {
    /// Runs SQL on the test server's database file through a connection of its own.
    static func sql(_ server: TestServer, _ body: (any SQLDatabase) async throws -> Void) async throws {
        let connection = try await SQLiteDatabaseFactory.open(
            path: server.services.configuration.databasePath, logger: Logger(label: "test"))
        do {
            try await body(connection.sql())
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Makes every insert of an event of `type` fail, as a full disk or a broken table would.
    static func refuse(_ type: EventType, _ server: TestServer) async throws {
        try await sql(server) {
            try await $0.raw(
                """
                CREATE TRIGGER refuse_event BEFORE INSERT ON events WHEN NEW.type = \(literal: type.rawValue) \
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """
            ).run()
        }
    }

    static func allow(_ server: TestServer) async throws {
        try await sql(server) { try await $0.raw("DROP TRIGGER refuse_event").run() }
    }

    static func count(_ table: String, _ server: TestServer) async throws -> Int {
        var count = 0
        try await sql(server) {
            count =
                try await $0.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decodingColumn: "n", as: Int.self)
                ?? 0
        }
        return count
    }

    static func events(_ server: TestServer, _ types: [EventType]) async throws -> [GatehouseEvent] {
        try await #require(server.services.storage.events).list(EventQuery(types: types, limit: 100))
    }

    @Test func aCodeExchangeIsStoredWithBothItsEventsOrNotAtAll() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let code = try await TokenEndpointTests.code(server, client)
            let tokens = try await Self.count("tokens", server)
            try await Self.refuse(.codeExchanged, server)
            let refused = try await TokenEndpointTests.exchange(server, client, code: code)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.json["error"]?["type"]?.stringValue == "OAuthException")
            // The code is still unused, no token was stored, and token.issued went with it.
            let record = try await server.services.storage.codes.find(codeHash: SecretHash.sha256Hex(code))
            #expect(record?.usedAt == nil)
            #expect(try await Self.count("tokens", server) == tokens)
            #expect(try await Self.events(server, [.tokenIssued, .codeExchanged]).isEmpty)

            try await Self.allow(server)
            let exchanged = try await TokenEndpointTests.exchange(server, client, code: code)
            #expect(exchanged.status == .ok)
            let token = try #require(exchanged.json["access_token"]?.stringValue)
            let stored = try #require(
                try await server.services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)))
            let events = try await Self.events(server, [.tokenIssued, .codeExchanged])
            #expect(events.map(\.type) == [.codeExchanged, .tokenIssued])
            #expect(events.allSatisfy { $0.appID == server.app.id && $0.personID == server.alice.id })
            #expect(
                events.first?.details == ["code_id": stored.codeID ?? "", "grant_type": "code", "client": "secret"])
            #expect(events.last?.details["token_id"] == stored.id)
            #expect(events.last?.details["origin"] == "code")
        }
    }

    @Test func anAppTokenIsStoredWithItsEventOrNotAtAll() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let uri =
                "/oauth/access_token?grant_type=client_credentials&client_id=\(server.app.id)"
                + "&client_secret=\(server.app.secret)"
            let tokens = try await Self.count("tokens", server)
            try await Self.refuse(.tokenIssued, server)
            let refused = try await client.execute(uri: uri, method: .get)
            #expect(refused.status == .serviceUnavailable)
            #expect(try await Self.count("tokens", server) == tokens)

            try await Self.allow(server)
            let minted = try await client.execute(uri: uri, method: .get)
            #expect(minted.status == .ok)
            let token = try #require(minted.json["access_token"]?.stringValue)
            let stored = try #require(
                try await server.services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)))
            #expect(try await Self.count("tokens", server) == tokens + 1)
            let issued = try await Self.events(server, [.tokenIssued])
            #expect(issued.count == 1)
            #expect(issued.first?.appID == server.app.id && issued.first?.personID == nil)
            #expect(issued.first?.details == ["token_id": stored.id, "kind": "app", "origin": "client_credentials"])
        }
    }

    /// An admin change's audit row and its `admin.write` event are one commit: when the event cannot be stored,
    /// neither is the row, and the change itself stands (the audit log never undoes what it describes).
    @Test func anAuditRowIsStoredWithItsAdminWriteEventOrNotAtAll() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let api = V1Client(client: client)
            let audit = server.services.storage.admins
            try await Self.refuse(.adminWrite, server)
            let refused = try await api.post("/apps", #"{"name":"Unaudited"}"#)
            #expect(refused.status == .created)
            #expect(try await audit.audit(before: nil, limit: 10).isEmpty)
            #expect(try await server.services.storage.apps.list().contains { $0.name == "Unaudited" })

            try await Self.allow(server)
            let created = try await api.post("/apps", #"{"name":"Audited"}"#)
            #expect(created.status == .created)
            let id = try #require(created.json["id"]?.stringValue)
            let rows = try await audit.audit(before: nil, limit: 10)
            #expect(rows.map(\.route) == ["/admin/api/v1/apps"])
            let events = try await Self.events(server, [.adminWrite])
            #expect(events.count == 1)
            #expect(events.first?.details["route"] == "/admin/api/v1/apps")
            #expect(events.first?.details["status"] == "201")
            #expect(try await server.services.storage.apps.find(id: id)?.name == "Audited")
        }
    }
}
