import Foundation
import GatehouseTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import ChildProcesses
#endif

/// Facebook's web quick-start page (`examples/javascript/index.html`: `fbAsyncInit`, `FB.getLoginStatus`, the
/// `fb:login-button`, `FB.api('/me')`), unchanged but for its SDK URL, in real headless Chromium against the live
/// server's `/en_US/sdk.js`. Its back end (`server.py`) reads the `fbsr_` cookie with facebook-sdk from PyPI.
///
/// Three tests, one Chromium each: the person's way through (popup login, reload, rerequest, logout, the server's
/// cookie); the auth events and the `data-` login button; and what goes wrong (a blocked popup, a closed one,
/// Cancel, a page the app does not list) with the feed dialog through `FB.ui`. Screenshots go to `artifacts/screenshots/js-sdk-*`.
@Suite(.serialized, .tags(.browser)) struct JavaScriptSDKBrowserTests {
    static let unknown = #"{"authResponse":null,"status":"unknown"}"#

    /// A live server, the quick-start site listed among the demo app's JavaScript SDK domains, and a Chromium.
    struct Rig {
        let server: LiveServer
        let site: QuickStartSite
        let driver: WebDriver
        var user: LiveServer.SeedUser { server.users[0] }

        static func with(_ name: String, blockPopups: Bool = false, _ body: (Rig) async throws -> Void) async throws {
            let server = try await LiveServer()
            let site: QuickStartSite
            do { site = try await QuickStartSite.start(for: server) } catch { server.stop(); throw error }
            let driver: WebDriver
            do { driver = try await WebDriver.start(testName: name, blockPopups: blockPopups) } catch {
                await site.stop(); server.stop(); throw error
            }
            let rig = Rig(server: server, site: site, driver: driver)
            do { try await body(rig) } catch {
                await rig.stop(); throw error
            }
            await rig.stop()
        }

        func stop() async {
            await driver.quit()
            await site.stop()
            server.stop()
        }

        /// Opens the page and waits for its first `FB.getLoginStatus` answer.
        func openPage(_ query: String = "") async throws -> String {
            try await driver.open(site.url + query)
            return try await driver.waitForText("#response", timeout: .seconds(20)) { !$0.isEmpty }
        }

        /// Empties the response log, so the next answer is told from the last.
        func clearResponse() async throws {
            try await driver.execute("document.getElementById('response').textContent = ''")
        }

        func response() async throws -> String {
            try await driver.waitForText("#response", timeout: .seconds(20)) { !$0.isEmpty }
        }

        /// Clicks `css` on the page and returns the main window's handle and the popup's, switched to the popup.
        func clickOpeningPopup(_ css: String) async throws -> (main: String, popup: String) {
            let main = try await driver.currentWindow()
            try await driver.click(css)
            let popup = try await driver.switchToNewWindow(besides: [main])
            return (main, popup)
        }

        /// Logs in with the seed person's password in the popup.
        func typePassword(shot: String) async throws {
            _ = try await driver.find("#email", timeout: .seconds(30))
            try await driver.screenshot(shot)
            try await driver.type("#email", user.email)
            try await driver.type("#password", user.password)
            try await driver.click("#login")
        }

        /// Presses a consent button, waits for the popup to close itself and returns to the page.
        func finishInPopup(_ button: String, main: String) async throws {
            try await driver.click(button)
            try await driver.waitForWindows([main])
            try await driver.switchTo(window: main)
        }

        /// The page's `FB.getAuthResponse()`.
        func authResponse() async throws -> [String: Any]? {
            try await driver.execute("return FB.getAuthResponse()") as? [String: Any]
        }

        /// The page's back end asked who the `fbsr_` cookie names (facebook-sdk's `get_user_from_cookie`).
        func askServer() async throws -> [String: Any] {
            try await driver.execute("document.getElementById('server').textContent = ''")
            try await driver.click("#server-check")
            let text = try await driver.waitForText("#server", timeout: .seconds(30)) { !$0.isEmpty }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? ["unreadable": text]
        }
    }

    @Test func quickStartLogsInReloadsRerequestsAndLogsOut() async throws {
        try await Rig.with("js-sdk-login") { rig in
            let driver = rig.driver
            // First visit: nobody is logged in.
            #expect(try await rig.openPage() == Self.unknown)
            #expect(try await driver.text("#status") == "Please log into this webpage.")
            try await driver.screenshot("first-visit")

            // The fb:login-button (scope public_profile,email): the popup, the password, email declined.
            var (main, _) = try await rig.clickOpeningPopup(".fb-login-button-gatehouse")
            try await rig.typePassword(shot: "popup-login")
            _ = try await driver.find("#perm-email", timeout: .seconds(30))
            try await driver.click("#perm-email")
            try await driver.screenshot("popup-consent-email-declined")
            try await rig.finishInPopup("button[value=continue]", main: main)
            let thanks = "Thanks for logging in, \(rig.user.name)!"
            _ = try await driver.waitForText("#status", timeout: .seconds(20)) { $0 == thanks }
            try await driver.screenshot("logged-in")
            let me = try JSONSerialization.jsonObject(with: Data(try await driver.text("#me").utf8)) as? [String: Any]
            let auth = try #require(try await rig.authResponse())
            let userID = try #require(auth["userID"] as? String)
            #expect(me?["id"] as? String == userID)
            #expect(me?["name"] as? String == rig.user.name)
            #expect((auth["accessToken"] as? String)?.hasPrefix("EAAG") == true)
            #expect(auth["expiresIn"] as? Int == 7200)
            #expect(auth["graphDomain"] as? String == "facebook")
            #expect((auth["signedRequest"] as? String)?.contains(".") == true)
            #expect(auth["data_access_expiration_time"] as? Int ?? 0 > Int(Date().timeIntervalSince1970))
            #expect(try await driver.execute("return FB.getUserID()") as? String == userID)

            // The back end reads the cookie the login set: facebook-sdk redeems its code for a token.
            let afterLogin = try await rig.askServer()
            #expect(afterLogin["uid"] as? String == userID)
            #expect(afterLogin["id"] as? String == userID)
            #expect(afterLogin["name"] as? String == rig.user.name)

            // return_scopes: the declined email is not granted; user_friends is.
            try await rig.clearResponse()
            (main, _) = try await rig.clickOpeningPopup("#scopes")
            _ = try await driver.find("button[value=continue]", timeout: .seconds(30))
            #expect(try await driver.exists("#perm-email") == false)
            try await rig.finishInPopup("button[value=continue]", main: main)
            let scoped = try await rig.response()
            #expect(scoped.contains(#""status":"connected""#))
            #expect(scoped.contains(#""grantedScopes":"public_profile,user_friends""#), "\(scoped)")

            // auth_type: 'rerequest' asks for the declined email again.
            try await rig.clearResponse()
            (main, _) = try await rig.clickOpeningPopup("#rerequest")
            _ = try await driver.find("#perm-email", timeout: .seconds(30))
            try await driver.screenshot("popup-rerequest")
            try await rig.finishInPopup("button[value=continue]", main: main)
            let rerequested = try await rig.response()
            #expect(
                rerequested.contains(#""grantedScopes":"public_profile,user_friends,email""#)
                    || rerequested.contains(#""grantedScopes":"public_profile,email,user_friends""#), "\(rerequested)")

            // A reload: connected from the session, without a popup; the status answer sets a fresh cookie.
            let reloaded = try await rig.openPage()
            #expect(reloaded.contains(#""status":"connected""#))
            #expect(reloaded.contains(#""userID":"\#(userID)""#))
            _ = try await driver.waitForText("#status", timeout: .seconds(20)) { $0 == thanks }
            #expect(try await driver.windowHandles().count == 1)
            let afterReload = try await rig.askServer()
            #expect(afterReload["uid"] as? String == userID)
            #expect(afterReload["name"] as? String == rig.user.name)

            // Logout: unknown, no authResponse, and still unknown after a reload.
            try await rig.clearResponse()
            try await driver.click("#logout")
            #expect(try await rig.response() == Self.unknown)
            #expect(try await driver.text("#status") == "Please log into this webpage.")
            #expect(try await rig.authResponse() == nil)
            #expect(try await rig.openPage() == Self.unknown)
            #expect(try await rig.askServer()["user"] is NSNull)
        }
    }

    /// `FB.Event.subscribe`/`unsubscribe` for the four auth events, and the `div.fb-login-button` form with its
    /// `data-scope`, `data-onlogin`, `data-size` and `data-button-type` attributes rendered by `FB.XFBML.parse()`.
    @Test func authEventsAndTheDataAttributeLoginButton() async throws {
        try await Rig.with("js-sdk-events") { rig in
            let driver = rig.driver
            #expect(try await rig.openPage() == Self.unknown)
            try await driver.execute(
                """
                var log = document.createElement('pre'); log.id = 'events'; document.body.appendChild(log);
                window.seen = function (name) {
                  return function (response) { log.textContent += name + ':' + response.status + ' '; };
                };
                window.onStatusChange = seen('auth.statusChange');
                FB.Event.subscribe('auth.login', seen('auth.login'));
                FB.Event.subscribe('auth.logout', seen('auth.logout'));
                FB.Event.subscribe('auth.authResponseChange', seen('auth.authResponseChange'));
                FB.Event.subscribe('auth.statusChange', window.onStatusChange);
                var button = document.createElement('div');
                button.id = 'data-button'; button.className = 'fb-login-button';
                button.setAttribute('data-scope', 'email');
                button.setAttribute('data-onlogin', 'document.getElementById("onlogin").textContent = response.status');
                button.setAttribute('data-size', 'large');
                button.setAttribute('data-button-type', 'continue_with');
                var onlogin = document.createElement('pre'); onlogin.id = 'onlogin';
                document.body.appendChild(button); document.body.appendChild(onlogin);
                FB.XFBML.parse();
                """)
            let rendered = "#data-button .fb-login-button-gatehouse"
            _ = try await driver.find(rendered, timeout: .seconds(10))
            #expect(try await driver.text(rendered) == "Continue with Facebook")
            #expect(
                try await driver.execute("return document.querySelector('\(rendered)').style.fontSize") as? String
                    == "16px")
            try await driver.screenshot("data-button")

            let (main, _) = try await rig.clickOpeningPopup(rendered)
            try await rig.typePassword(shot: "popup-login-data-button")
            // data-scope="email": the consent page asks for it.
            _ = try await driver.find("#perm-email", timeout: .seconds(30))
            try await rig.finishInPopup("button[value=continue]", main: main)
            #expect(try await driver.waitForText("#onlogin", timeout: .seconds(20)) { !$0.isEmpty } == "connected")
            let loggedIn = "auth.login:connected auth.authResponseChange:connected auth.statusChange:connected"
            let heardLogin = try await driver.waitForText("#events", timeout: .seconds(20)) {
                $0.count >= loggedIn.count
            }
            #expect(heardLogin.trimmingCharacters(in: .whitespaces) == loggedIn)
            // getLoginStatus answers from its cache without asking Gatehouse; `force` asks.
            try await driver.execute(
                """
                window.statusCalls = 0;
                var fetchBefore = window.fetch;
                window.fetch = function (url) {
                  if (String(url).indexOf('/x/oauth/status') >= 0) window.statusCalls += 1;
                  return fetchBefore.apply(this, arguments);
                };
                ['cached', 'forced'].forEach(function (id) {
                  var pre = document.createElement('pre'); pre.id = id; document.body.appendChild(pre);
                });
                FB.getLoginStatus(function (r) {
                  document.getElementById('cached').textContent = r.status + ' after ' + window.statusCalls;
                });
                FB.getLoginStatus(function (r) {
                  document.getElementById('forced').textContent = r.status + ' after ' + window.statusCalls;
                }, true);
                """)
            #expect(
                try await driver.waitForText("#cached", timeout: .seconds(20)) { !$0.isEmpty } == "connected after 0")
            #expect(
                try await driver.waitForText("#forced", timeout: .seconds(20)) { !$0.isEmpty } == "connected after 1")

            // Unsubscribed, statusChange is heard no more; the other three tell the logout.
            try await driver.execute(
                """
                document.getElementById('events').textContent = '';
                FB.Event.unsubscribe('auth.statusChange', window.onStatusChange);
                FB.logout(function () {});
                """)
            let loggedOut = "auth.logout:unknown auth.authResponseChange:unknown"
            let heardLogout = try await driver.waitForText("#events", timeout: .seconds(20)) {
                $0.count >= loggedOut.count
            }
            #expect(heardLogout.trimmingCharacters(in: .whitespaces) == loggedOut)
            #expect(try await rig.authResponse() == nil)
        }
    }

    @Test func blockedClosedCancelledRefusedAndTheFeedDialog() async throws {
        try await Rig.with("js-sdk-failures", blockPopups: true) { rig in
            let driver = rig.driver
            #expect(try await rig.openPage() == Self.unknown)
            let main = try await driver.currentWindow()

            // FB.login outside a click: Chromium blocks the popup; the callback still comes, unknown.
            try await rig.clearResponse()
            try await driver.execute("FB.login(function (response) { showResponse(response); })")
            #expect(try await rig.response() == Self.unknown)
            #expect(try await driver.windowHandles() == [main])

            // The person closes the popup.
            try await rig.clearResponse()
            _ = try await rig.clickOpeningPopup("#scopes")
            _ = try await driver.find("#email", timeout: .seconds(30))
            try await driver.closeWindow()
            try await driver.switchTo(window: main)
            #expect(try await rig.response() == Self.unknown)

            // The person logs in and presses Cancel on the consent page.
            try await rig.clearResponse()
            _ = try await rig.clickOpeningPopup("#scopes")
            try await rig.typePassword(shot: "popup-login")
            _ = try await driver.find("button[value=cancel]", timeout: .seconds(30))
            try await rig.finishInPopup("button[value=cancel]", main: main)
            #expect(try await rig.response() == Self.unknown)

            // Then logs in, and shares through FB.ui's feed dialog.
            try await rig.clearResponse()
            _ = try await rig.clickOpeningPopup("#scopes")
            try await rig.finishInPopup("button[value=continue]", main: main)
            #expect(try await rig.response().contains(#""status":"connected""#))
            try await rig.clearResponse()
            _ = try await rig.clickOpeningPopup("#share")
            _ = try await driver.find("#message", timeout: .seconds(30))
            try await driver.type("#message", "Reading the docs")
            try await driver.screenshot("popup-feed")
            try await rig.finishInPopup("button[value=post]", main: main)
            let shared = try await rig.response()
            #expect(shared.hasPrefix(#"{"post_id":""#), "\(shared)")

            // An app that does not list the page's origin: no status, and the dialog refuses the page.
            let (status, created) = try await QuickStartSite.adminV1(
                rig.server, "POST", "/apps", #"{"name":"Elsewhere","redirect_uris":["https://elsewhere.example/cb"]}"#)
            #expect(status == 201)
            let other = try #require(
                (try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["id"] as? String)
            #expect(try await rig.openPage("?app_id=\(other)") == Self.unknown)
            try await rig.clearResponse()
            _ = try await rig.clickOpeningPopup("#scopes")
            let refusal = try await driver.waitForText("h1", timeout: .seconds(30)) { !$0.isEmpty }
            #expect(refusal == "Can't load URL: the domain of this page isn't among the app's JavaScript SDK domains")
            #expect(try await driver.text("body").contains("--add-js-sdk-domain \(rig.site.origin)"))
            try await driver.screenshot("popup-domain-refused")
            try await driver.closeWindow()
            try await driver.switchTo(window: main)
            #expect(try await rig.response() == Self.unknown)
        }
    }
}
