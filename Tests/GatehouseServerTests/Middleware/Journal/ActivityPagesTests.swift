import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Where people see the journal: `/console/activity` (list, filters, live stream, one request), the admin API,
/// and the links from the token and app pages.
@Suite struct ActivityPagesTests {
    /// A refused login dialog and a successful Graph call, for the pages to show.
    static func traffic(_ client: any TestClientProtocol, _ server: TestServer, token: String) async throws {
        _ = try await client.execute(
            uri: "/dialog/oauth?client_id=\(server.app.id)&redirect_uri=http://localhost:3000/cb", method: .get)
        _ = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
    }

    @Test func listShowsRequestsWithTheirReasonAndFilters() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            try await Self.traffic(client, server, token: token)
            let page = try await client.execute(uri: "/console/activity", method: .get)
            #expect(page.status == .ok)
            #expect(page.text.contains("redirect_uri `http://localhost:3000/cb` is not registered for app Test App"))
            #expect(page.text.contains("GET /v27.0/me"))
            #expect(page.text.contains(#"<script src="/static/activity.js" defer></script>"#))
            // Only this page may run the same-origin script and open the event stream; no inline script anywhere.
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(
                csp.contains("script-src 'self'") && csp.contains("connect-src 'self'")
                    && !csp.contains("unsafe-inline"))
            #expect(!page.text.contains("<script>"))
            let errors = try await client.execute(uri: "/console/activity?errors=1", method: .get)
            #expect(errors.text.contains("is not registered") && !errors.text.contains("GET /v27.0/me"))
            let byApp = try await client.execute(uri: "/console/activity?app=999", method: .get)
            #expect(byApp.text.contains("No requests recorded that match these filters yet."))
            let byPerson = try await client.execute(uri: "/console/activity?person=alice", method: .get)
            #expect(byPerson.text.contains("GET /v27.0/me") && !byPerson.text.contains("is not registered"))
            let byToken = try await client.execute(
                uri: "/console/activity?token=\(JournalRedaction.tokenHashPrefix(token))", method: .get)
            #expect(
                byToken.text.contains("GET /v27.0/me") && byToken.text.contains("Requests that presented the token"))
            let script = try await client.execute(uri: "/static/activity.js", method: .get)
            #expect(
                script.status == .ok && script.headers[.contentType] == "text/javascript; charset=utf-8"
                    && script.text.contains("EventSource"))
            // The console's own pages are not journaled.
            #expect(
                server.services.journal.entries().allSatisfy {
                    !$0.route.hasPrefix("/console") && !$0.route.hasPrefix("/static")
                })
        }
    }

    @Test func detailPageShowsOneRequest() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            try await Self.traffic(client, server, token: token)
            let refused = try #require(server.services.journal.entries(matching: JournalFilter(errorsOnly: true)).first)
            let page = try await client.execute(uri: "/console/activity/\(refused.sequence)", method: .get)
            #expect(page.status == .ok)
            #expect(
                page.text.contains(#"id="explanation""#) && page.text.contains("is not registered for app Test App"))
            #expect(page.text.contains("/console/activity?app=\(server.app.id)"))
            let missing = try await client.execute(uri: "/console/activity/99999", method: .get)
            #expect(missing.status == .notFound)
        }
    }

    @Test func adminAPIListsAndFollows() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            try await Self.traffic(client, server, token: token)
            let all = try await client.execute(uri: "/admin/api/v1/journal", method: .get)
            #expect(all.status == .ok)
            #expect(all.json["enabled"]?.boolValue == true)
            let latest = try #require(all.json["latest"]?.intValue)
            let data = try #require(all.json["data"]?.arrayValue)
            #expect(data.count == 2)
            #expect(
                data[0]["route"]?.stringValue == "/v27.0/me" && data[0]["person_name"]?.stringValue == "Alice Anders")
            #expect(data[1]["explanation"]?.stringValue?.contains("is not registered") == true)
            let errors = try await client.execute(
                uri: "/admin/api/v1/journal?errors=1&app=\(server.app.id)", method: .get)
            #expect(errors.json["data"]?.arrayValue?.count == 1)
            let none = try await client.execute(uri: "/admin/api/v1/journal?after=\(latest)", method: .get)
            #expect(none.json["data"]?.arrayValue?.isEmpty == true)
            let one = try await client.execute(uri: "/admin/api/v1/journal/\(latest)", method: .get)
            #expect(one.json["seq"]?.intValue == latest && one.json["parts"]?.arrayValue?.isEmpty == true)
            #expect(try await client.execute(uri: "/admin/api/v1/journal/0", method: .get).status == .notFound)
        }
    }

    @Test func streamSendsNewEntriesAsEvents() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            try await Self.traffic(client, server, token: token)
            let stream = try await client.execute(uri: "/console/activity/stream?after=0&errors=1&for=1", method: .get)
            #expect(stream.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(stream.text.hasPrefix("retry: 1000\n\n"))
            #expect(stream.text.contains("event: entry\ndata: {\"seq\":1,"))
            #expect(stream.text.contains("is not registered"))
            #expect(!stream.text.contains("/v27.0/me"))
        }
    }

    @Test func tokenAndAppPagesLinkToTheirActivity() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let tokens = try await client.execute(uri: "/console/tokens", method: .get)
            #expect(tokens.text.contains("/console/activity?token=\(JournalRedaction.tokenHashPrefix(token))"))
            let app = try await client.execute(uri: "/console/apps/\(server.app.id)", method: .get)
            #expect(app.text.contains("/console/activity?app=\(server.app.id)"))
            let home = try await client.execute(uri: "/console", method: .get)
            #expect(home.text.contains(#"href="/console/activity""#))
        }
    }
}
