import Foundation
import GatehouseTestSupport
import GatehouseKit
import GatehouseKitLoopback
import GatehouseProtocol
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import ChildProcesses
#endif

/// Issue 32's "done when" for sign-up, mail and reset, in a real Chromium: a person creates an account from the
/// app's login page, reads the confirmation mail on /console/mail, confirms, and logs in to the app; then forgets
/// the password, resets it from the mailed link, and the app's old token answers 190/460.
@Suite(.serialized, .tags(.browser)) struct SignUpBrowserTests {
    @Test func signUpConfirmLogInThenResetThePassword() async throws {
        try await BrowserRig.with("sign-up") { rig in
            let login = rig.startLogin(["email"])
            _ = try await rig.driver.find("#email", timeout: .seconds(60))
            let dialog = try await rig.driver.currentURL()
            try await rig.driver.click("#create-account")
            _ = try await rig.driver.find("#firstname")
            try await rig.driver.type("#firstname", "Carol")
            try await rig.driver.type("#lastname", "Cho")
            try await rig.driver.type("#email", "Carol.Cho@Example.com")
            try await rig.driver.type("#password", "carol-first-pass")
            try await rig.driver.type("#birthday_day", "7")
            try await rig.driver.type("#birthday_year", "1992")
            try await rig.driver.screenshot("sign-up")
            try await rig.driver.click("#signup")
            #expect(try await rig.driver.waitForText("h1") { $0 == "Check your email" } == "Check your email")

            // The confirmation mail, on the console's mail page; its link is clickable.
            try await rig.driver.open(rig.base + "/console/mail")
            #expect(try await rig.driver.text(".mail-to") == "carol.cho@example.com")
            try await rig.driver.screenshot("console-mail")
            try await rig.driver.click(".mail-link")
            try await rig.driver.click("#confirm")
            #expect(
                try await rig.driver.waitForText("h1") { $0 == "Your account is confirmed" }
                    == "Your account is confirmed")

            // Its Log in goes back to the app's dialog (carried as next through the form and the mailed link): log in
            // and allow.
            try await rig.driver.click("#login-link")
            _ = try await rig.driver.find("#email")
            let back = try await rig.driver.currentURL()
            #expect(back.hasPrefix(rig.base + "/dialog/oauth?"), "\(back)")
            #expect(
                back.split(separator: "?", maxSplits: 1).last == dialog.split(separator: "?", maxSplits: 1).last,
                "\(back) vs \(dialog)")
            try await rig.typePassword(
                .init(id: "", name: "Carol Cho", email: "carol.cho@example.com", password: "carol-first-pass"),
                shot: "login-new-account")
            try await rig.driver.click("button[value=continue]")
            _ = try await rig.waitForLoopbackPage()
            guard case .success(_, _, let token?) = await login.value else {
                Issue.record("the new account's login failed"); return
            }
            #expect(try await rig.graphMe()["name"]?.stringValue == "Carol Cho")

            // Forgotten password: the link from the mail, a new password, and the old token is dead.
            try await rig.driver.open(rig.base + "/login")
            try await rig.driver.click("#forgotten-password")
            try await rig.driver.type("#email", "carol.cho@example.com")
            try await rig.driver.click("#send-reset")
            _ = try await rig.driver.waitForText("h1") { $0 == "Check your email" }
            try await rig.driver.open(rig.base + "/console/mail")
            #expect(try await rig.driver.text("h2") == "Reset your Gatehouse password")
            try await rig.driver.click(".mail-link")
            try await rig.driver.type("#password", "carol-second-pass")
            try await rig.driver.screenshot("reset-password")
            try await rig.driver.click("#reset-password")
            #expect(
                try await rig.driver.waitForText("h1") { $0 == "Your password has been changed" }
                    == "Your password has been changed")

            var request = URLRequest(url: URL(string: rig.base + "/v27.0/me?access_token=\(token.tokenString)")!)
            request.httpMethod = "GET"
            let (data, _) = try await URLSession.shared.data(for: request)
            let error = try JSONValue.parse(data)["error"]
            #expect(error?["code"]?.intValue == 190)
            #expect(error?["error_subcode"]?.intValue == 460)
        }
    }
}
