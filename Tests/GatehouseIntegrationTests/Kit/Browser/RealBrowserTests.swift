import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseKitLoopback
import GatehouseProtocol
import GatehouseTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pages people see, in a real headless Chromium driven over WebDriver: a person logs in and consents,
/// manages their apps, and a developer injects errors and moves the clock in the console.
///
/// Serialized: each test runs its own server and browser, and two Chromiums at once would only slow
/// both down on a small machine. Every page visited is saved under `artifacts/screenshots/`.
@Suite(.serialized, .tags(.browser)) struct RealBrowserTests {
    @Test func gatehouseLoginFromTheTerminalThroughTheRealPages() async throws {
        try await BrowserRig.with("cli-login") { rig in
            let folder = try ScratchDirectory.create("cli")
            defer { folder.remove() }
            let scratch = folder.url
            // The CLI opens the dialog with `$BROWSER`; ours hands the URL to the driven Chromium.
            let opened = scratch.appendingPathComponent("opened-url")
            let opener = scratch.appendingPathComponent("browser.sh")
            try "#!/bin/sh\nprintf '%s' \"$1\" > '\(opened.path)'\n".write(
                to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
            let login = CLIRun(
                [
                    "login", "--permissions", "email,user_friends", "--server", rig.base, "--app-id", rig.server.appID,
                    "--cache-dir", scratch.path, "--timeout", "60",
                ], environment: ["BROWSER": opener.path])
            var url: String?
            for _ in 0..<600 {
                if let text = try? String(contentsOf: opened, encoding: .utf8), !text.isEmpty { url = text; break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let dialog = try #require(url, "gatehouse login never opened a browser")
            #expect(dialog.hasPrefix(rig.base + "/") && dialog.contains("/dialog/oauth?"))
            try await rig.driver.open(dialog)
            #expect(try await rig.driver.title() == "Log in to Gatehouse Demo · Gatehouse")
            try await rig.typePassword(rig.server.users[0])
            _ = try await rig.driver.find("button[value=continue]")
            try await rig.driver.screenshot("consent")
            #expect(try await rig.driver.text("h1").contains("Gatehouse Demo is requesting access to:"))
            try await rig.driver.click("button[value=continue]")
            _ = try await rig.waitForLoopbackPage()
            try await rig.driver.screenshot("finished")
            let (status, output) = await login.finish()
            #expect(status == 0)
            #expect(output.contains("Logged in as \(rig.server.users[0].name)"))
            #expect(output.contains("Granted: email, public_profile, user_friends"))
            let whoami = await CLIRun([
                "whoami", "--server", rig.base, "--app-id", rig.server.appID, "--cache-dir", scratch.path,
            ]).finish()
            #expect(whoami.0 == 0)
            #expect(whoami.1.contains(rig.server.users[0].name))
        }
    }

    @Test func decliningOnePermissionWithEditAccess() async throws {
        try await BrowserRig.with("decline") { rig in
            let login = rig.startLogin(["email", "user_friends"])
            try await rig.typePassword(rig.server.users[0])
            _ = try await rig.driver.find("#perm-user_friends")
            try await rig.driver.click("#perm-user_friends")  // un-tick "Friends list" under Edit access
            try await rig.driver.screenshot("consent-edited")
            try await rig.driver.click("button[value=continue]")
            guard case .success(let granted, let declined, let token) = await login.value else {
                Issue.record("login did not succeed"); return
            }
            #expect(granted == [.publicProfile, .email])
            #expect(declined == [.userFriends])
            #expect(token?.declinedPermissions == [.userFriends])
        }
    }

    @Test func cancelOnTheConsentPage() async throws {
        try await BrowserRig.with("cancel") { rig in
            let login = rig.startLogin(["email"])
            try await rig.typePassword(rig.server.users[1])
            _ = try await rig.driver.find("button[value=cancel]")
            try await rig.driver.click("button[value=cancel]")
            guard case .cancelled = await login.value else { Issue.record("expected cancelled"); return }
            try await rig.driver.screenshot("cancelled")
            #expect(rig.environment.currentAccessToken == nil)
        }
    }

    @Test func aSecondAppInTheSameBrowserSkipsThePassword() async throws {
        try await BrowserRig.with("single-sign-on") { rig in
            let first = rig.startLogin(["email"])
            try await rig.typePassword(rig.server.users[0])
            try await rig.driver.click("button[value=continue]")
            guard case .success = await first.value else { Issue.record("first login failed"); return }

            let created = await CLIRun([
                "apps", "create", "--data-dir", rig.server.directory, "--name", "Second App",
                "--redirect-uri", "http://127.0.0.1/callback", "--json",
            ]).finish()
            #expect(created.0 == 0)
            let secondID = try #require(try JSONValue.parse(Data(created.1.utf8))["id"]?.stringValue)
            let settings = rig.server.settings()
            settings.appID = secondID
            settings.displayName = "Second App"
            let environment = GatehouseKitEnvironment(settings: settings, tokenCache: LoginTestTokenCache())
            let manager = LoginManager(
                presenter: LoopbackLoginPresenter(browser: WebDriverOpener(driver: rig.driver), output: { _ in }),
                environment: environment)
            let second = Task { await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!) }
            // Straight to consent: the browser session from the first app's login is reused.
            _ = try await rig.driver.find("button[value=continue]", timeout: .seconds(60))
            #expect(try await rig.driver.exists("#password") == false)
            #expect(try await rig.driver.text("h1").contains("Second App is requesting access to:"))
            try await rig.driver.screenshot("second-app-consent")
            try await rig.driver.click("button[value=continue]")
            guard case .success(_, _, let token) = await second.value else {
                Issue.record("second login failed"); return
            }
            #expect(token?.appID == secondID)
        }
    }

    @Test func pickingATestUserOnWhoDoYouWantToBe() async throws {
        try await BrowserRig.with("pick-test-user") { rig in
            var request = URLRequest(url: URL(string: rig.base + "/\(rig.server.appID)/accounts/test-users")!)
            request.httpMethod = "POST"
            request.httpBody = Data(
                FormEncoding.encode([
                    ("name", "Tess Tester"), ("installed", "false"),
                    ("access_token", "\(rig.server.appID)|\(rig.server.appSecret)"),
                ]).utf8)
            let (data, _) = try await URLSession.shared.data(for: request)
            let testUser = try JSONValue.parse(data)
            let email = try #require(testUser["email"]?.stringValue)
            let login = rig.startLogin(["email"])
            _ = try await rig.driver.find("#picker-title", timeout: .seconds(60))
            #expect(try await rig.driver.text("#picker-title") == "Who do you want to be?")
            try await rig.driver.screenshot("who-do-you-want-to-be")
            try await rig.driver.click("button.person[data-email=\"\(email)\"]")
            _ = try await rig.driver.find("button[value=continue]")
            #expect(try await rig.driver.text(".who .name") == "Tess Tester")
            try await rig.driver.click("button[value=continue]")
            guard case .success(_, _, let token) = await login.value else { Issue.record("login failed"); return }
            #expect(token?.userID == testUser["id"]?.stringValue)
        }
    }

    @Test func removingTheAppInSettingsEndsTheSDKsSession() async throws {
        try await BrowserRig.with("settings-remove") { rig in
            let login = rig.startLogin(["email", "user_friends"])
            try await rig.typePassword(rig.server.users[0])
            try await rig.driver.click("button[value=continue]")
            guard case .success(_, _, let token) = await login.value, token != nil else {
                Issue.record("login failed"); return
            }
            #expect(try await rig.graphMe()["name"]?.stringValue == rig.server.users[0].name)

            try await rig.driver.open(rig.base + "/settings/apps")
            _ = try await rig.driver.find("#remove-\(rig.server.appID)")
            try await rig.driver.screenshot("settings-apps")
            #expect(try await rig.driver.text("#app-\(rig.server.appID)") == "Gatehouse Demo")
            try await rig.driver.click("#remove-\(rig.server.appID)")
            _ = try await rig.driver.find("p.note")
            #expect(
                try await rig.driver.text("p.note") == "The app was removed. It can no longer see your information.")
            try await rig.driver.screenshot("settings-removed")

            do {
                _ = try await rig.graphMe()
                Issue.record("the removed app's token still worked")
            } catch let error as GraphAPIError {
                #expect(error.code == 190)
                #expect(error.subcode == 458)
                #expect(ErrorRecovery.category(for: error) == .loginRequired)
            }
            #expect(rig.environment.currentAccessToken == nil)
        }
    }

    @Test func consoleErrorInjectionReachesTheSDKsErrorRecovery() async throws {
        try await BrowserRig.with("console-inject") { rig in
            let login = rig.startLogin(["email"])
            try await rig.typePassword(rig.server.users[0])
            try await rig.driver.click("button[value=continue]")
            guard case .success = await login.value else { Issue.record("login failed"); return }

            try await rig.driver.open(rig.base + "/console/errors")
            _ = try await rig.driver.find("#target-id")
            try await rig.driver.click("#target option[value=user]")
            try await rig.driver.type("#target-id", rig.server.users[0].email)
            try await rig.driver.click("#error option[value=\"17\"]")
            try await rig.driver.type("#times", "1")
            try await rig.driver.screenshot("console-errors")
            try await rig.driver.click("form[action=\"/console/errors\"] button[type=submit]")
            _ = try await rig.driver.find("p.note")
            #expect(try await rig.driver.source().contains("17 · user request limit reached"))
            try await rig.driver.screenshot("console-injected")

            do {
                _ = try await rig.graphMe()
                Issue.record("the injected error did not happen")
            } catch let error as GraphAPIError {
                #expect(error.code == 17)
                #expect(ErrorRecovery.category(for: error) == .throttled)
            }
            // Once only: the next call answers normally, and the throttle left the token alone.
            #expect(try await rig.graphMe()["name"]?.stringValue == rig.server.users[0].name)
            #expect(rig.environment.currentAccessToken != nil)
        }
    }

    @Test func movingTheClockInTheConsoleExpiresTheToken() async throws {
        try await BrowserRig.with("console-clock") { rig in
            let login = rig.startLogin(["email"])
            try await rig.typePassword(rig.server.users[2])
            try await rig.driver.click("button[value=continue]")
            guard case .success = await login.value else { Issue.record("login failed"); return }
            #expect(try await rig.graphMe()["name"] != nil)

            try await rig.driver.open(rig.base + "/console/clock")
            _ = try await rig.driver.find("#by")
            try await rig.driver.type("#by", "61d")
            try await rig.driver.click("form[action=\"/console/clock/advance\"] button.primary")
            _ = try await rig.driver.find("p.note")
            #expect(try await rig.driver.text("#server-clock").contains("(moved +61d)"))
            try await rig.driver.screenshot("console-clock")

            do {
                _ = try await rig.graphMe()
                Issue.record("the token outlived the clock")
            } catch let error as GraphAPIError {
                #expect(error.code == 190)
                #expect(error.subcode == 463)
                #expect(ErrorRecovery.category(for: error) == .loginRequired)
            }
            #expect(rig.environment.currentAccessToken == nil)
            try await rig.driver.open(rig.base + "/console", shot: "console-home")
        }
    }

    @Test func keyboardOnlyLoginFollowsAReadableFocusOrder() async throws {
        try await BrowserRig.with("keyboard") { rig in
            let login = rig.startLogin(["email"])
            _ = try await rig.driver.find("#email", timeout: .seconds(60))
            #expect(try await rig.driver.focused() == "email")  // autofocus
            let user = rig.server.users[1]
            try await rig.driver.keys(user.email + WebDriver.tab)
            #expect(try await rig.driver.focused() == "password")
            try await rig.driver.keys(user.password + WebDriver.tab)
            #expect(try await rig.driver.focused() == "login")
            try await rig.driver.keys(WebDriver.enter)
            _ = try await rig.driver.find("button[value=continue]")
            // Tab through the permission toggles to Cancel, then Continue; Enter submits.
            var order: [String] = []
            for _ in 0..<8 where order.filter({ $0 == "action" }).count < 2 {
                try await rig.driver.keys(WebDriver.tab)
                order.append(try await rig.driver.focused())
            }
            #expect(order == ["perm-email", "action", "action"])
            try await rig.driver.keys(WebDriver.enter)
            guard case .success(let granted, _, _) = await login.value else {
                Issue.record("keyboard login failed"); return
            }
            #expect(granted.contains(.email))
        }
    }
}

/// Runs the built `gatehouse` binary to completion in the background, with no display or `$BROWSER` of ours.
final class CLIRun: Sendable {
    private let done: Task<(Int32, String), Never>

    init(_ arguments: [String], environment: [String: String] = [:]) {
        var changes: [String: String?] = ["DISPLAY": nil, "WAYLAND_DISPLAY": nil, "BROWSER": nil]
        for (name, value) in environment { changes[name] = value }
        let binary = LiveServer.binary
        done = Task {
            do {
                let run = try await ChildProcess.run(
                    binary, arguments: arguments, environment: changes, mergingStandardError: true)
                return (run.status, run.standardOutput)
            } catch {
                return (-1, "could not run \(binary): \(error)")
            }
        }
    }

    /// Waits for the exit status and everything printed.
    func finish() async -> (Int32, String) { await done.value }
}
