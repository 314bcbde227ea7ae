import Foundation
import GatehouseKit
import GatehouseKitLoopback
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A browser that runs a script instead of showing a page.
struct ScriptedBrowser: BrowserOpening {
    let script: @Sendable (URL) async -> Bool
    func open(_ url: URL) async -> Bool { await script(url) }
}

/// Collects the lines the presenter prints.
final class OutputLines: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var lines: [String] { lock.withLock { _lines } }
    func append(_ line: String) { lock.withLock { _lines.append(line) } }
}

/// Keeps what a scripted browser saw.
final class BrowserLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _pages: [String] = []
    var pages: [String] { lock.withLock { _pages } }
    func append(_ page: String) { lock.withLock { _pages.append(page) } }
}

enum Loopback {
    static let session = URLSession(configuration: .ephemeral)

    /// GETs `url` and returns the status and body.
    static func get(_ url: String) async throws -> (Int, String) {
        let (data, response) = try await session.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// A dialog URL carrying `redirectURI` the way `LoginManager` builds it.
    static func dialog(_ redirectURI: String) -> URL {
        var components = URLComponents(string: "http://127.0.0.1:9/v27.0/dialog/oauth")!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: "1"), URLQueryItem(name: "redirect_uri", value: redirectURI),
        ]
        return components.url!
    }

    static func redirectURI(in dialog: URL) -> String {
        URLComponents(url: dialog, resolvingAgainstBaseURL: false)!.queryItems!.first { $0.name == "redirect_uri" }!
            .value!
    }
}

@Suite struct LoopbackLoginPresenterTests {
    @Test func codeCallbackInTheQueryFinishesAndShutsTheListenerDown() async throws {
        let log = BrowserLog(), output = OutputLines()
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { dialog in
                let (status, page) =
                    (try? await Loopback.get(Loopback.redirectURI(in: dialog) + "?code=abc&state=xyz")) ?? (0, "")
                log.append("\(status) \(page)")
                return true
            }, output: output.append)
        let redirect = try await presenter.prepare()
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        #expect(redirect.hasSuffix("/callback"))
        let port = Int(redirect.dropFirst("http://127.0.0.1:".count).dropLast("/callback".count))
        #expect((port ?? 0) > 0)
        let dialog = Loopback.dialog(redirect)
        let callback = try await presenter.present(dialog)
        #expect(callback == URL(string: redirect + "?code=abc&state=xyz"))
        #expect(log.pages.count == 1)
        #expect(log.pages[0].hasPrefix("200 "))
        #expect(log.pages[0].contains("<h1>Login finished</h1>"))
        #expect(output.lines.contains(dialog.absoluteString))
        await #expect(throws: (any Error).self) { try await Loopback.get(redirect + "?code=late") }
    }

    @Test func fragmentCallbackIsRelayedByThePageScript() async throws {
        let log = BrowserLog()
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { dialog in
                let redirect = Loopback.redirectURI(in: dialog)
                // What a browser does with `redirect#access_token=…`: request it without the fragment, run the script.
                let relay = (try? await Loopback.get(redirect)) ?? (0, "")
                log.append(relay.1)
                let done = (try? await Loopback.get(redirect + "/complete?access_token=EAAt&state=s1")) ?? (0, "")
                log.append(done.1)
                let again = (try? await Loopback.get(redirect + "/complete?access_token=other")) ?? (0, "")
                log.append(again.1)
                return true
            }, output: { _ in })
        let redirect = try await presenter.prepare()
        let callback = try await presenter.present(Loopback.dialog(redirect))
        #expect(callback == URL(string: redirect + "#access_token=EAAt&state=s1"))
        #expect(log.pages[0].contains("location.hash"))
        #expect(log.pages[0].contains("<noscript>"))
        #expect(log.pages[1].contains("<h1>Login finished</h1>"))
        #expect(log.pages[2].contains("Login already finished"))
    }

    @Test func cancelledCallbackShowsTheCancelledPage() async throws {
        let log = BrowserLog()
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { dialog in
                let page =
                    (try? await Loopback.get(
                        Loopback.redirectURI(in: dialog) + "?error=access_denied&error_reason=user_denied")) ?? (0, "")
                log.append(page.1)
                return true
            }, output: { _ in })
        let redirect = try await presenter.prepare()
        #expect(
            try await presenter.present(Loopback.dialog(redirect))
                == URL(string: redirect + "?error=access_denied&error_reason=user_denied"))
        #expect(log.pages[0].contains("<h1>Login cancelled</h1>"))
    }

    @Test func timeoutWithoutBrowserPrintsTheURLAndFails() async throws {
        let output = OutputLines()
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { _ in false }, timeout: .milliseconds(300), output: output.append)
        let redirect = try await presenter.prepare()
        let dialog = Loopback.dialog(redirect)
        await #expect(throws: LoopbackLoginError.timedOut(.milliseconds(300))) { try await presenter.present(dialog) }
        #expect(
            output.lines == [
                "Log in with the dialog in your browser. If it does not open, open this URL:",
                dialog.absoluteString,
                "No browser could be opened; open the URL above to continue.",
            ])
        #expect(
            LoopbackLoginError.timedOut(.seconds(300)).description
                == "No login callback arrived within 300 seconds; the login was abandoned.")
        await #expect(throws: (any Error).self) { try await Loopback.get(redirect) }
    }

    @Test func cancellingThePresentingTaskReturnsNil() async throws {
        let presenter = LoopbackLoginPresenter(browser: ScriptedBrowser { _ in true }, output: { _ in })
        let redirect = try await presenter.prepare()
        let task = Task { try await presenter.present(Loopback.dialog(redirect)) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(try await task.value == nil)
    }

    @Test func unknownPathsAre404() async throws {
        let log = BrowserLog()
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { dialog in
                let redirect = Loopback.redirectURI(in: dialog)
                let root = redirect.replacingOccurrences(of: "/callback", with: "/favicon.ico")
                log.append("\((try? await Loopback.get(root))?.0 ?? 0)")
                _ = try? await Loopback.get(redirect + "?code=c")
                return true
            }, output: { _ in })
        let redirect = try await presenter.prepare()
        _ = try await presenter.present(Loopback.dialog(redirect))
        #expect(log.pages == ["404"])
    }

    @Test func presentNeedsARedirectFromPrepare() async {
        let presenter = LoopbackLoginPresenter(browser: ScriptedBrowser { _ in true }, output: { _ in })
        await #expect(throws: CoreError.self) {
            try await presenter.present(Loopback.dialog("http://127.0.0.1:1/callback"))
        }
    }

    @Test func eachLoginGetsItsOwnPort() async throws {
        let presenter = LoopbackLoginPresenter(
            browser: ScriptedBrowser { dialog in
                _ = try? await Loopback.get(Loopback.redirectURI(in: dialog) + "?code=c")
                return true
            }, output: { _ in })
        let first = try await presenter.prepare(), second = try await presenter.prepare()
        #expect(first != second)
        #expect(try await presenter.present(Loopback.dialog(second)) == URL(string: second + "?code=c"))
        #expect(try await presenter.present(Loopback.dialog(first)) == URL(string: first + "?code=c"))
    }
}

/// `LoginManager` driving the loopback presenter, for outcomes that need no server.
@Suite struct LoopbackLoginManagerTests {
    static func manager(_ browser: ScriptedBrowser) -> LoginManager {
        let settings = Settings()
        settings.appID = "4242"
        settings.clientToken = "ct"
        settings.serverURL = URL(string: "http://127.0.0.1:9")!
        return LoginManager(
            presenter: LoopbackLoginPresenter(browser: browser, output: { _ in }),
            environment: GatehouseKitEnvironment(settings: settings))
    }

    @Test func cancelInTheBrowserIsACancelledLogin() async {
        let manager = Self.manager(
            ScriptedBrowser { dialog in
                _ = try? await Loopback.get(
                    Loopback.redirectURI(in: dialog) + "?error=access_denied&error_code=200&error_reason=user_denied")
                return true
            })
        guard case .cancelled = await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!) else {
            Issue.record("expected cancelled"); return
        }
    }

    @Test func forgedStateIsRejectedBeforeAnyExchange() async {
        let manager = Self.manager(
            ScriptedBrowser { dialog in
                _ = try? await Loopback.get(Loopback.redirectURI(in: dialog) + "?code=stolen&state=%7B%7D")
                return true
            })
        guard case .failed(let error) = await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!)
        else {
            Issue.record("expected failure"); return
        }
        #expect(error as? LoginError == LoginError(.badChallengeString))
    }
}

/// The loopback flow as the `.webView` dialog of a login behaviour.
@Suite struct LoopbackLoginDialogTests {
    @Test func isTheWebViewDialogAndNeedsABrowser() async {
        let headless = LoginManagerDialog.loopback(browser: SystemBrowserOpener(environment: [:]))
        #expect(headless.kind == .webView)
        #if os(Linux)
        #expect(await !headless.isAvailable())
        #endif
        let desktop = LoginManagerDialog.loopback(browser: SystemBrowserOpener(environment: ["DISPLAY": ":0"]))
        #expect(await desktop.isAvailable())
    }
}
