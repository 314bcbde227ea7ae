import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseProtocol
import GatehouseTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request journal in a real Chromium: a login with a redirect URI the app never registered is refused with
/// Facebook's error page, and `/console/activity` says why, live (server-sent events through the page's one
/// same-origin script, under its CSP) and after a reload.
@Suite(.serialized, .tags(.browser)) struct ActivityBrowserTests {
    @Test func aWrongRedirectURIIsExplainedOnTheActivityPage() async throws {
        try await BrowserRig.with("activity") { rig in
            let app = rig.server.appID
            // The console's activity page is open first, so the refusal must arrive through the live stream.
            try await rig.driver.open(rig.base + "/console/activity?errors=1")
            _ = try await rig.driver.find("#activity-rows", timeout: .seconds(60))
            _ = try await rig.driver.waitForText("#live-status", timeout: .seconds(60)) { $0.hasPrefix("Live") }

            let wrong = "http://localhost:3000/cb"
            let dialog = rig.base + "/dialog/oauth?client_id=\(app)&redirect_uri=\(wrong)&scope=email&state=s1"
            var request = URLRequest(url: URL(string: dialog)!)
            request.httpMethod = "GET"
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            let live = try await rig.driver.waitForText("#activity-rows tr td.why", timeout: .seconds(60)) {
                $0.contains("is not registered")
            }
            #expect(live.contains("redirect_uri `\(wrong)` is not registered for app Gatehouse Demo; registered:"))

            // The person's side: the same login in the browser shows the refusal page, not the journal's explanation.
            try await rig.driver.open(dialog, shot: "refused")
            #expect(try await rig.driver.text("h1") == "This redirect URI is not allowed")
            #expect(try await !rig.driver.source().contains("differs after"))

            // A reload lists both, and one request's page explains it in full.
            try await rig.driver.open(rig.base + "/console/activity?errors=1")
            let why = try await rig.driver.text("#activity-rows tr td.why")
            #expect(why.contains("is not registered for app Gatehouse Demo"))
            try await rig.driver.screenshot("activity")
            try await rig.driver.click("#activity-rows tr td a")
            let explanation = try await rig.driver.text("#explanation")
            #expect(explanation.hasPrefix("Why: redirect_uri `\(wrong)` is not registered"))
            try await rig.driver.screenshot("activity-entry")
        }
    }
}
