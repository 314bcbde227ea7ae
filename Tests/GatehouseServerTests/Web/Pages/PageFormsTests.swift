import Foundation
import GatehouseProtocol
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import GatehouseCore
@testable import GatehouseServer

/// Issue 40, item 3: every page form passes one CSRF check and meets one expired-form page; the way back to a
/// dialog and the page paths are built in one place each.
@Suite struct PageFormsTests {
    /// Every form a browser can post, in development mode (the console, the picker and test-user login open).
    static let forms = [
        "/dialog/oauth/login", "/dialog/oauth/consent", "/dialog/oauth/publish", "/dialog/oauth/pick",
        "/dialog/oauth/test-user", "/dialog/account/continue", "/dialog/login_code", "/dialog/feed/post",
        "/dialog/apprequests/send", "/login", "/logout", "/settings/apps/remove", "/settings/apps/revoke",
        "/settings/apps/delete-data", "/settings/sessions/logout", "/settings/password", "/settings/account/delete",
        "/settings/two-factor/start", "/settings/two-factor/confirm", "/settings/two-factor/disable",
        "/account/signup", "/account/confirm", "/account/confirm/resend", "/account/recover", "/account/reset",
        "/device/signin", "/device/consent", "/testuser/login", "/console/apps", "/console/explorer",
        "/console/admin-tokens", "/console/clock/advance",
    ]

    static let expiredDetail =
        "For your security the form could not be accepted. Go back, reload the page and try again."

    @Test func everyFormWithoutItsTokenMeetsTheOneExpiredPage() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            // The browser holds a CSRF cookie, so only the form's token is missing.
            _ = try await browser.get("/login")
            for path in Self.forms {
                let refused = try await browser.post(path, form: [("csrf_token", "stale"), ("email", "a@b.c")])
                #expect(refused.status == .forbidden, "\(path)")
                #expect(refused.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(refused.headers[.setCookie] == nil, "\(path)")
                #expect(refused.headers[.cacheControl] == "no-store", "\(path)")
                #expect(refused.text.contains("<h1>This form has expired</h1>"), "\(path)")
                #expect(refused.text.contains("<p>\(Self.expiredDetail)</p>"), "\(path)")
            }
        }
    }

    @Test func aDialogFormTooLargeToReadMeetsItsOwnPage() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 1024 })
        try await server.run { client in
            let browser = Browser(client)
            let refused = try await browser.post(
                "/dialog/oauth/login", form: [("email", String(repeating: "a", count: 4096))])
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("<h1>The form could not be read</h1>"))
            #expect(refused.text.contains("<p>The request was too large or not valid form data.</p>"))
        }
    }

    @Test func theWayBackToADialogCarriesOnlyItsOwnMarkers() {
        let back = DialogReturn(rawQuery: "client_id=1&gh_reauth=5&redirect_uri=x&gh_login_error=1")
        #expect(back.query == "client_id=1&redirect_uri=x")
        #expect(back.url == "/dialog/oauth?client_id=1&redirect_uri=x")
        #expect(back.afterWrongPassword == "/dialog/oauth?client_id=1&redirect_uri=x&gh_login_error=1")
        #expect(DialogReturn(kind: .feed, rawQuery: "app_id=1").url == "/dialog/feed?app_id=1")
        #expect(DialogReturn.showsLoginError("a=1&gh_login_error=1"))
        #expect(!DialogReturn.showsLoginError("a=1&gh_login_errors"))

        let start = Date(timeIntervalSince1970: 1_000)
        let session = BrowserSessionRecord(
            id: "s", secretHash: "h", userID: "u", createdAt: start, expiresAt: start.addingTimeInterval(3600),
            authenticatedAt: start)
        #expect(DialogReturn.afterLogin("/dialog/oauth?a=1", session: session) == "/dialog/oauth?a=1&gh_reauth=1000")
        #expect(DialogReturn.afterLogin("/dialog/oauth", session: session) == "/dialog/oauth?gh_reauth=1000")
        #expect(DialogReturn.afterLogin("/settings/apps", session: session) == "/settings/apps")
        #expect(DialogReturn.justAuthenticated(["gh_reauth": "1000"], session: session, now: start))
        #expect(!DialogReturn.justAuthenticated(["gh_reauth": "999"], session: session, now: start))
        #expect(
            !DialogReturn.justAuthenticated(
                ["gh_reauth": "1000"], session: session,
                now: start.addingTimeInterval(Lifetimes.reauthenticationWindow)))
        #expect(!DialogReturn.justAuthenticated(["gh_reauth": "1000"], session: nil, now: start))
    }

    @Test func pagePathsAreBuiltFromTheTable() {
        #expect(PagePath.Console.user("7", notice: "saved") == "/console/users/7?notice=saved")
        #expect(PagePath.Console.app("42", notice: "secret") == "/console/apps/42?notice=secret")
        #expect(PagePath.notice(PagePath.Console.home, "imported") == "/console?notice=imported")
        #expect(PagePath.Console.login(next: "/console/apps") == "/console/login?next=%2Fconsole%2Fapps")
        #expect(
            PagePath.Console.login(next: "/console/apps", failed: true)
                == "/console/login?error=1&next=%2Fconsole%2Fapps")
        #expect(PagePath.login(next: PagePath.Settings.apps) == "/login?next=%2Fsettings%2Fapps")
        #expect(PagePath.Device.code("ABCD-EFGH") == "/device?user_code=ABCD-EFGH")
        #expect(PagePath.Console.contains("/console") && PagePath.Console.contains("/console/apps"))
        #expect(!PagePath.Console.contains("/consoles"))
    }
}
