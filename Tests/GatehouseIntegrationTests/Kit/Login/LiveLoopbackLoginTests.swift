import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTesting
import GatehouseTestSupport
import GatehouseKitLoopback
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A browser for the loopback presenter: completes the live dialog with `DialogPlayer`, then follows the
/// redirect to the listener as a real browser would (fragment kept back, the page's script relaying it).
final class LoopbackDialogBrowser: BrowserOpening, @unchecked Sendable {
    private let lock = NSLock()
    private let user: LiveServer.SeedUser
    private let choice: DialogPlayer.Choice
    private let responseType: String?
    private var _pages: [String] = []
    private var _dialogs: [URL] = []

    init(user: LiveServer.SeedUser, choice: DialogPlayer.Choice = .init(), responseType: String? = nil) {
        self.user = user
        self.choice = choice
        self.responseType = responseType
    }

    /// Every page the listener served, in order.
    var pages: [String] { lock.withLock { _pages } }
    var dialogs: [URL] { lock.withLock { _dialogs } }

    func open(_ url: URL) async -> Bool {
        let dialog = responseType.map { LiveLogin.replacing("response_type", with: $0, in: url) } ?? url
        lock.withLock { _dialogs.append(dialog) }
        do {
            let redirect = try await DialogPlayer().complete(
                dialog, email: user.email, password: user.password, choice: choice)
            var components = URLComponents(url: redirect, resolvingAgainstBaseURL: false)!
            let fragment = components.percentEncodedFragment
            components.fragment = nil
            try await load(components.url!)
            if let fragment, fragment != "_=_", pages.last?.contains("location.hash") == true {
                // What the relay page's script does with `location.hash`.
                try await load(
                    URL(
                        string: components.url!.absoluteString.components(separatedBy: "?")[0] + "/complete?" + fragment
                    )!)
            }
            return true
        } catch {
            return false
        }
    }

    private func load(_ url: URL) async throws {
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
        let page = String(decoding: data, as: UTF8.self)
        lock.withLock { _pages.append(page) }
    }
}

final class LoopbackOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var lines: [String] { lock.withLock { _lines } }
    func append(_ line: String) { lock.withLock { _lines.append(line) } }
}

/// `LoginManager` with `LoopbackLoginPresenter` against the live server (RFC 8252 loopback redirect).
@Suite(.tags(.process)) struct LiveLoopbackLoginTests {
    @Test func tokenFlowIsRelayedFromTheFragmentAndFinishes() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let browser = LoopbackDialogBrowser(user: server.users[0])
        let output = LoopbackOutput()
        let manager = LoginManager(
            presenter: LoopbackLoginPresenter(browser: browser, output: output.append), environment: environment)
        let result = try await manager.logIn(permissions: ["email"])
        let token = try #require(result.token)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(environment.currentAccessToken == token)
        #expect(try await LiveLogin.meID(token, environment: environment) == token.userID)
        #expect(browser.pages.count == 2)
        #expect(browser.pages.first?.contains("location.replace('/callback/complete?'") == true)
        #expect(browser.pages.last?.contains("<h1>Login finished</h1>") == true)
        let dialog = try #require(browser.dialogs.first)
        let redirect = try #require(LoginTest.query(dialog)["redirect_uri"])
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
        #expect(output.lines.contains(dialog.absoluteString))
    }

    @Test func codeFlowNeedsNoScriptAndRedeemsWithTheLoopbackRedirect() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let browser = LoopbackDialogBrowser(user: server.users[1], responseType: LiveLogin.codeResponseType)
        let manager = LoginManager(
            presenter: LoopbackLoginPresenter(browser: browser, output: { _ in }), environment: environment)
        let result = try await manager.logIn(permissions: ["email"])
        let token = try #require(result.token)
        #expect(try await LiveLogin.meID(token, environment: environment) == token.userID)
        #expect(browser.pages.count == 1)
        #expect(browser.pages.first?.contains("<h1>Login finished</h1>") == true)
    }

    @Test func cancelInTheBrowserShowsTheCancelledPage() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let browser = LoopbackDialogBrowser(user: server.users[0], choice: .init(cancel: true))
        let manager = LoginManager(
            presenter: LoopbackLoginPresenter(browser: browser, output: { _ in }), environment: environment)
        guard case .cancelled = await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!) else {
            Issue.record("expected cancelled"); return
        }
        #expect(browser.pages.last?.contains("<h1>Login cancelled</h1>") == true)
        #expect(environment.currentAccessToken == nil)
    }
}
