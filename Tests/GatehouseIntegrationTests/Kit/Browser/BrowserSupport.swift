import Foundation
import GatehouseKit
import GatehouseKitLoopback
import GatehouseProtocol
import GatehouseTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Opens the loopback presenter's dialog URL in the driven Chromium instead of the system browser.
struct WebDriverOpener: BrowserOpening {
    let driver: WebDriver
    func open(_ url: URL) async -> Bool {
        (try? await driver.open(url.absoluteString)) != nil
    }
}

/// A live server, a real Chromium, and an SDK environment on the server's demo app.
struct BrowserRig {
    let server: LiveServer
    let driver: WebDriver
    let environment: GatehouseKitEnvironment

    static func start(_ name: String) async throws -> BrowserRig {
        let server = try await LiveServer()
        do {
            let driver = try await WebDriver.start(testName: name)
            return BrowserRig(server: server, driver: driver, environment: LiveLogin.environment(server))
        } catch {
            server.stop()
            throw error
        }
    }

    /// Runs `body` with a fresh server and browser and always shuts both down before returning, so no
    /// Chromium outlives the test (a `defer { Task { … } }` may never run before the process exits).
    static func with(_ name: String, _ body: (BrowserRig) async throws -> Void) async throws {
        let rig = try await start(name)
        do {
            try await body(rig)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func stop() async {
        await driver.quit()
        server.stop()
    }

    var base: String { server.baseURL.absoluteString }

    /// A `LoginManager` whose dialog opens in the driven browser (RFC 8252 loopback redirect).
    func manager() -> LoginManager {
        LoginManager(
            presenter: LoopbackLoginPresenter(browser: WebDriverOpener(driver: driver), output: { _ in }),
            environment: environment)
    }

    /// Starts an SDK login in the background; the test then plays the person in the browser.
    func startLogin(_ permissions: [String]) -> Task<LoginResult, Never> {
        let manager = manager()
        return Task {
            await manager.logIn(
                configuration: LoginConfiguration(
                    permissions: Set(permissions.map { GatehouseKit.Permission(stringLiteral: $0) }))!)
        }
    }

    /// Types the person's email and password on the login page.
    func typePassword(_ user: LiveServer.SeedUser, shot: String = "login") async throws {
        _ = try await driver.find("#email", timeout: .seconds(60))
        try await driver.screenshot(shot)
        try await driver.type("#email", user.email)
        try await driver.type("#password", user.password)
        try await driver.click("#login")
    }

    /// Waits for the loopback listener's closing page.
    func waitForLoopbackPage() async throws -> String {
        try await driver.waitForURL { $0.contains("/callback") && !$0.contains("/dialog/") }
    }

    /// A Graph call with the environment's current token.
    func graphMe() async throws -> JSONValue {
        try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await GraphRequest(graphPath: "me", parameters: ["fields": "id,name"]).startJSON()
        }
    }

    /// POSTs JSON to a route of the server's admin API (`/admin/api/v1<path>`).
    func admin(_ path: String, _ body: String) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: base + "/admin/api/v1" + path)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
