import Foundation
import GatehouseKit
import GatehouseKitLoopback
import GatehouseProtocol
import GatehouseTestSupport
import Testing
import ChildProcesses

/// Issue 32's "done when", in a real Chromium: a person turns on two-factor login in their settings and logs in
/// again through the login code checkpoint; the app sees an ordinary login.
@Suite(.serialized, .tags(.browser)) struct TwoFactorBrowserTests {
    /// Whether the QR image loaded as an SVG, and the CSP violations the page reported: Chromium's Reporting API
    /// hands a new observer the reports made before it existed (`buffered`), asynchronously, hence the async script.
    static let qrCheck = """
        var done = arguments[arguments.length - 1], violations = [];
        var image = document.getElementById("otpauth-qr-image");
        var observer = new ReportingObserver(function (reports) {
          reports.forEach(function (r) { violations.push(r.body.effectiveDirective + " " + r.body.blockedURL); });
        }, { types: ["csp-violation"], buffered: true });
        observer.observe();
        setTimeout(function () {
          done({ loaded: image.complete, naturalWidth: image.naturalWidth,
                 svg: image.src.indexOf("data:image/svg+xml,") === 0, violations: violations });
        }, 250);
        """

    @Test func turningOnTwoFactorThenLoggingInThroughTheCheckpoint() async throws {
        try await BrowserRig.with("two-factor") { rig in
            let person = rig.server.users[0]
            let first = rig.startLogin(["email"])
            try await rig.typePassword(person)
            try await rig.driver.click("button[value=continue]")
            guard case .success = await first.value else { Issue.record("the first login failed"); return }

            // Settings → Security and login → Turn on: the key, then the first code (development mode shows it).
            try await rig.driver.open(rig.base + "/settings/apps")
            try await rig.driver.click("#security-settings")
            _ = try await rig.driver.find("#two-factor-on")
            try await rig.driver.screenshot("security-settings")
            // Turning it on asks for the password (a stolen session alone cannot enrol an authenticator).
            try await rig.driver.type("#two-factor-on-password", person.password)
            try await rig.driver.click("#two-factor-on")
            _ = try await rig.driver.find("#two-factor-secret")
            #expect(try await rig.driver.text("#otpauth-uri").hasPrefix("otpauth://totp/Gatehouse:"))
            // The QR code: drawn by the page's two same-origin scripts under its CSP (a blocked script draws nothing).
            let qr = try await rig.driver.find("#otpauth-qr-image", timeout: .seconds(10))
            let rect = try await rig.driver.command("GET", "element/\(qr)/rect") as? [String: Any]
            #expect((rect?["width"] as? Double ?? 0) >= 200 && (rect?["height"] as? Double ?? 0) >= 200)
            let drawn =
                try await rig.driver.command("POST", "execute/async", ["script": Self.qrCheck, "args": []])
                as? [String: Any]
            #expect(drawn?["loaded"] as? Bool == true)
            #expect(drawn?["svg"] as? Bool == true)
            #expect(drawn?["naturalWidth"] as? Int ?? 0 > 0)
            #expect(drawn?["violations"] as? [String] == [])
            try await rig.driver.screenshot("two-factor-setup")
            try await rig.driver.type("#two-factor-code", try await rig.driver.text("#development-code"))
            try await rig.driver.click("#two-factor-confirm")
            _ = try await rig.driver.find("#recovery-codes")
            try await rig.driver.screenshot("two-factor-recovery-codes")
            #expect(try await rig.driver.text("h1") == "Two-factor authentication is on")

            // Log out (Log out of all sessions keeps this browser), then log in to the app again: password, then the
            // checkpoint, then back to the app.
            try await rig.driver.click("#done")
            try await rig.driver.click("form[action='/logout'] button")
            _ = try await rig.driver.find("#email")
            // Away from /login's own #email field, so the password goes into the app's dialog.
            try await rig.driver.open("about:blank")
            let second = rig.startLogin(["email"])
            try await rig.typePassword(person, shot: "login-again")
            _ = try await rig.driver.find("#login-code", timeout: .seconds(30))
            try await rig.driver.screenshot("login-code-checkpoint")
            #expect(try await rig.driver.text("h1") == "Enter login code")
            try await rig.driver.type(
                "#login-code", "000000" == (try await rig.driver.text("#development-code")) ? "111111" : "000000")
            try await rig.driver.click("#login-code-continue")
            _ = try await rig.driver.find("#login-code-error")
            try await rig.driver.screenshot("login-code-wrong")
            try await rig.driver.type("#login-code", try await rig.driver.text("#development-code"))
            try await rig.driver.click("#login-code-continue")
            _ = try await rig.waitForLoopbackPage()
            guard case .success(_, _, let token) = await second.value, token != nil else {
                Issue.record("the login through the checkpoint failed"); return
            }
            #expect(try await rig.graphMe()["name"]?.stringValue == person.name)
        }
    }
}
