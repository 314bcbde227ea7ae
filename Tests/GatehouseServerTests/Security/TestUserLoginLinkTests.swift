import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 14: a test user's `login_url` no longer logs a browser in from a plain GET (an `<img>` could
/// do that), expires after an hour, and does nothing at all in production mode.
@Suite struct TestUserLoginLinkTests {
    static func loginURL(_ server: TestServer, _ client: any TestClientProtocol) async throws -> String {
        let created = try await client.execute(
            uri: "/\(server.app.id)/accounts/test-users?access_token=\(server.appToken)", method: .post)
        return Browser.relative(try #require(created.json["login_url"]?.stringValue))
    }

    @Test func openingTheLinkWithGETDoesNotLogIn() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let link = try await Self.loginURL(server, client)
            let r = try await client.execute(uri: link, method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.setCookie]?.contains("gh_session=") != true)
            #expect(r.text.contains("action=\"/testuser/login\""))
            #expect(r.text.contains("method=\"post\""))
        }
    }

    @Test func thePostWithoutTheCSRFTokenIsRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get(try await Self.loginURL(server, client))
            let fields = ["app_id", "user_id", "expires", "sig"].map {
                ($0, Browser.hiddenValue($0, in: page.text) ?? "")
            }
            let r = try await browser.post("/testuser/login", form: fields)
            #expect(r.status == .forbidden)
            #expect(r.headers[.setCookie]?.contains("gh_session=") != true)
        }
    }

    @Test func anHourOldLinkNoLongerWorks() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let link = try await Self.loginURL(server, client)
            server.clock.advance(by: 3601)
            let browser = Browser(client)
            let r = try await browser.get(link)
            #expect(r.status == .badRequest)
            #expect(r.text.contains("This login link is not valid"))
            #expect(r.headers[.setCookie]?.contains("gh_session=") != true)
        }
    }

    @Test func productionModeRefusesTestUserLoginLinks() async throws {
        let server = try await TestServer.make(mode: .production)
        try await server.run { client in
            let link = try await Self.loginURL(server, client)
            let get = try await client.execute(uri: link, method: .get)
            #expect(get.status == .notFound)
            #expect(get.headers[.setCookie]?.contains("gh_session=") != true)
            let post = try await client.execute(uri: "/testuser/login", method: .post)
            #expect(post.status == .notFound)
        }
    }
}
