import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite struct AdminConsoleTests {
    static let password = "correct horse battery"

    static func production() async throws -> TestServer {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"
        })
        try await AdminAccounts(services: server.services).create(email: "Ops@Example.com", password: password)
        return server
    }

    @Test func adminStoreIsCaseInsensitiveAndRefusesDuplicatesAndWeakPasswords() async throws {
        let server = try await Self.production()
        try await server.run { _ in
            let accounts = AdminAccounts(services: server.services)
            let found = try #require(try await server.services.storage.admins.find(email: "ops@example.COM"))
            #expect(found.email == "Ops@Example.com")
            #expect(found.passwordHash.hasPrefix("$2"))
            #expect(!found.passwordHash.contains(Self.password))
            await #expect(throws: AccountError("an admin with email ops@example.com already exists")) {
                try await accounts.create(email: "ops@example.com", password: "another long password")
            }
            await #expect(throws: AccountError("admin passwords need at least 12 characters")) {
                try await accounts.create(email: "two@example.com", password: "short")
            }
            await #expect(throws: AccountError("admin email nobody is not an email address")) {
                try await accounts.create(email: "nobody", password: "long enough password")
            }
            #expect(try await server.services.storage.admins.list().map(\.email) == ["Ops@Example.com"])
        }
    }

    @Test func developmentModeLeavesTheConsoleOpen() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for path in ["/console", "/console/apps", "/admin/clock"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status != .seeOther, "\(path)")
                #expect(r.status != .unauthorized, "\(path)")
            }
        }
    }

    @Test func productionSendsConsolePagesToTheLoginAndRefusesTheAdminAPI() async throws {
        let server = try await Self.production()
        try await server.run { client in
            let page = try await client.execute(uri: "/console/apps", method: .get)
            #expect(page.status == .seeOther)
            #expect(page.location == "/console/login?next=%2Fconsole%2Fapps")
            let root = try await client.execute(uri: "/console", method: .get)
            #expect(root.location == "/console/login?next=%2Fconsole")
            let api = try await client.execute(uri: "/admin/clock", method: .post)
            #expect(api.status == .unauthorized)
            #expect(
                api.json
                    == .object([
                        "error": .object([
                            "message": "An admin session is required: log in at /console/login.",
                            "type": "OAuthException", "code": 190,
                        ])
                    ]))
            // Not a prefix match on words: /consoles is not the console.
            let other = try await client.execute(uri: "/consoles", method: .get)
            #expect(other.status != .seeOther)
        }
    }

    @Test func adminLoginWithCSRFThen303AndASecureStrictCookie() async throws {
        let server = try await Self.production()
        try await server.run { client in
            let browser = Browser(client)
            let login = try await browser.get("/console/login?next=%2Fconsole%2Fapps")
            #expect(login.status == .ok)
            #expect(login.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(login.text.contains("action=\"/console/login\""))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: login.text))
            #expect(Browser.hiddenValue("next", in: login.text) == "/console/apps")

            let forged = try await browser.post(
                "/console/login",
                form: [("csrf_token", "x"), ("email", "ops@example.com"), ("password", Self.password)])
            #expect(forged.status == .forbidden)

            let wrong = try await browser.post(
                "/console/login",
                form: [
                    ("csrf_token", csrf), ("next", "/console/apps"), ("email", "ops@example.com"),
                    ("password", "wrong password!"),
                ])
            #expect(wrong.status == .seeOther)
            #expect(wrong.location == "/console/login?error=1&next=%2Fconsole%2Fapps")
            #expect(browser.cookies["__Host-gh_admin"] == nil)
            let again = try await browser.get(wrong.location!)
            #expect(again.status == .unauthorized)
            #expect(again.text.contains("The email or password you entered is incorrect."))

            let right = try await browser.post(
                "/console/login",
                form: [
                    ("csrf_token", csrf), ("next", "/console/apps"), ("email", "OPS@example.com"),
                    ("password", Self.password),
                ])
            #expect(right.status == .seeOther)
            #expect(right.location == "/console/apps")
            let cookie = try #require(right.headers[.setCookie])
            #expect(cookie.hasPrefix("__Host-gh_admin="))
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))

            // Through the gate now: whatever the console answers, it is not the login redirect.
            let console = try await browser.get("/console/apps")
            #expect(console.location?.hasPrefix("/console/login") != true)
            #expect(console.status != .unauthorized)
            let loginAgain = try await browser.get("/console/login")
            #expect(loginAgain.location == "/console")

            // Logging out ends the session server-side.
            let secret = try #require(browser.cookies["__Host-gh_admin"])
            // The CSRF token is bound to the session (issue 12, finding 18): the one from before login no longer
            // fits, a page rendered for the session gives the current one.
            let stale = try await browser.post("/console/logout", form: [("csrf_token", csrf)])
            #expect(stale.status == .forbidden)
            let bound = try #require(Browser.hiddenValue("csrf_token", in: console.text))
            let out = try await browser.post("/console/logout", form: [("csrf_token", bound)])
            #expect(out.status == .seeOther)
            #expect(out.location == "/console/login")
            #expect(
                try await server.services.storage.admins.findSession(secretHash: SecretHash.sha256Hex(secret)) == nil)
            #expect(try await browser.get("/console/apps").status == .seeOther)
        }
    }

    @Test func nextNeverLeavesTheConsole() {
        #expect(AdminLoginController.safeNext("/console/users?x=1") == "/console/users?x=1")
        #expect(AdminLoginController.safeNext("/admin/clock") == "/admin/clock")
        for bad in [
            "https://evil.example/console", "//evil.example/console", "/dialog/oauth", "/console\\evil", nil,
            "/console\nSet-Cookie: x",
        ] {
            #expect(AdminLoginController.safeNext(bad) == "/console")
        }
    }

    @Test func consoleLoginIsThrottled() async throws {
        let server = try await TestServer.make(configure: {
            $0.mode = .production; $0.publicURL = "https://gatehouse.test"; $0.limits.loginAttemptsPerAccount = 2
        })
        try await AdminAccounts(services: server.services).create(email: "ops@example.com", password: Self.password)
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/console/login").text))
            for _ in 0..<2 {
                let r = try await browser.post(
                    "/console/login",
                    form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", "guess guess guess")])
                #expect(r.status == .seeOther)
            }
            let limited = try await browser.post(
                "/console/login",
                form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", Self.password)])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.text.contains("Too many failed attempts."))
            #expect(limited.headers[.retryAfter] != nil)
            server.clock.advance(by: 901)
            let later = try await browser.post(
                "/console/login",
                form: [("csrf_token", csrf), ("email", "ops@example.com"), ("password", Self.password)])
            #expect(later.status == .seeOther)
            #expect(later.location == "/console")
        }
    }
}
