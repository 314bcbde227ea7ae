import AsyncHTTPClient
import ChildProcesses
import Foundation
import GatehouseTestSupport
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1

/// A real headless Chromium, driven over the W3C WebDriver protocol through `chromedriver`.
///
/// Debian's `chromium` and `chromium-driver` are required: `scripts/test` installs them. When they are
/// missing, `start()` throws and the test fails; it never skips.
final class WebDriver: @unchecked Sendable {
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    let base: URL
    let sessionID: String
    /// Chromium's profile, removed by ``quit()`` once no Chromium process uses it (waiting at most 10 s).
    let profile: ScratchDirectory
    /// Where `screenshot(_:)` writes PNGs: `artifacts/screenshots` in the package, or `GATEHOUSE_ARTIFACTS`.
    let screenshotDirectory: URL
    let testName: String
    private var shots = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func executable(_ name: String, _ candidates: [String]) throws -> String {
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) { return path }
        throw Failure(
            description:
                "\(name) is not installed (looked in \(candidates.joined(separator: ", "))); scripts/test installs "
                + "Debian's chromium and chromium-driver"
        )
    }

    /// Starts chromedriver on a free port and opens a headless Chromium session with its own profile.
    /// - Parameter blockPopups: keep Chromium's popup blocker on (chromedriver turns it off by default), so a
    ///   `window.open` outside a click is blocked as in a person's browser.
    static func start(testName: String, blockPopups: Bool = false) async throws -> WebDriver {
        let driver = try executable("chromedriver", ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
        let chromium = try executable("chromium", ["/usr/bin/chromium", "/usr/lib/chromium/chromium"])
        // chromedriver binds a port picked here; another process can take it first, so a failed start tries
        // another port.
        var started: (process: ChildProcess, base: URL)?
        var problem = ""
        for _ in 0..<3 where started == nil {
            let port = try FreeTCPPort.find()
            let process = try await ChildProcess.start(
                driver, arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1"], standardError: .discarded)
            let base = URL(string: "http://127.0.0.1:\(port)")!
            for _ in 0..<250 where process.isRunning {
                do {
                    let (status, _) = try await request("GET", base.appendingPathComponent("status"), nil)
                    if status == 200 { started = (process, base); break }
                    problem = "status \(status)"
                } catch {
                    problem = "\(error)"
                }
                try await Task.sleep(for: .milliseconds(40))
            }
            if started == nil {
                problem = "port \(port): \(problem) \(process.output)"
                await process.kill()
            }
        }
        guard let (process, base) = started else {
            throw Failure(description: "chromedriver did not start: \(problem)")
        }
        let profile = ScratchDirectory("chromium")  // Chromium creates it
        var chromeOptions: [String: Any] = [
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1100,1000",
                "--user-data-dir=\(profile.path)", "--no-first-run", "--password-store=basic", "--lang=en-US",
            ],
        ]
        if blockPopups { chromeOptions["excludeSwitches"] = ["disable-popup-blocking"] }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome", "pageLoadStrategy": "normal", "goog:chromeOptions": chromeOptions,
                ]
            ]
        ]
        let (status, reply) = try await request("POST", base.appendingPathComponent("session"), capabilities)
        guard status == 200, let value = reply["value"] as? [String: Any], let session = value["sessionId"] as? String
        else {
            await process.kill()
            await removeWhenChromiumHasExited(profile)
            throw Failure(description: "chromium did not start: \(reply)")
        }
        return WebDriver(process: process, base: base, session: session, profile: profile, testName: testName)
    }

    private init(process: ChildProcess, base: URL, session: String, profile: ScratchDirectory, testName: String) {
        self.base = base
        self.sessionID = session
        self.profile = profile
        self.testName = testName
        let root =
            ProcessInfo.processInfo.environment["GATEHOUSE_ARTIFACTS"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("artifacts")
        screenshotDirectory = root.appendingPathComponent("screenshots")
        try? FileManager.default.createDirectory(at: screenshotDirectory, withIntermediateDirectories: true)
        self.process = process
    }

    private let process: ChildProcess

    // MARK: Commands

    @discardableResult
    func command(_ method: String, _ path: String, _ body: [String: Any]? = [:]) async throws -> Any? {
        let url = base.appendingPathComponent("session/\(sessionID)/\(path)")
        let (status, reply) = try await Self.request(method, url, method == "GET" || method == "DELETE" ? nil : body)
        guard status == 200 else {
            let value = reply["value"] as? [String: Any]
            throw Failure(
                description: "WebDriver \(method) \(path): \(value?["error"] ?? status) \(value?["message"] ?? "")")
        }
        return reply["value"]
    }

    /// Loads a page and saves a screenshot named after it.
    func open(_ url: String, shot: String? = nil) async throws {
        try await command("POST", "url", ["url": url])
        if let shot { try await screenshot(shot) }
    }

    func currentURL() async throws -> String { try await command("GET", "url") as? String ?? "" }
    func title() async throws -> String { try await command("GET", "title") as? String ?? "" }
    func source() async throws -> String { try await command("GET", "source") as? String ?? "" }

    /// The first element matching a CSS selector, waiting up to `timeout` for it to appear.
    func find(_ css: String, timeout: Duration = .seconds(5)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try? await command("POST", "element", ["using": "css selector", "value": css])
                as? [String: Any],
                let id = value[Self.elementKey] as? String
            {
                return id
            }
            if ContinuousClock.now > deadline {
                throw Failure(description: "no element matches \(css) on \(try await currentURL())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func exists(_ css: String) async throws -> Bool {
        let value = try await command("POST", "elements", ["using": "css selector", "value": css]) as? [[String: Any]]
        return !(value ?? []).isEmpty
    }

    func click(_ css: String) async throws { try await command("POST", "element/\(try await find(css))/click") }
    func text(_ css: String) async throws -> String {
        try await command("GET", "element/\(try await find(css))/text") as? String ?? ""
    }

    func type(_ css: String, _ text: String) async throws {
        let element = try await find(css)
        try await command("POST", "element/\(element)/clear")
        try await command("POST", "element/\(element)/value", ["text": text])
    }

    /// Sends real key presses to the focused element (Tab, Enter and Space move and act like a keyboard user).
    func keys(_ text: String) async throws {
        try await command(
            "POST", "actions",
            [
                "actions": [
                    [
                        "type": "key", "id": "keyboard",
                        "actions": text.unicodeScalars.flatMap { scalar in
                            [
                                ["type": "keyDown", "value": String(scalar)],
                                ["type": "keyUp", "value": String(scalar)],
                            ]
                        },
                    ]
                ]
            ])
    }

    static let tab = "\u{E004}", enter = "\u{E007}", space = "\u{E00D}"

    /// The `id` or `name` of the focused element.
    func focused() async throws -> String {
        let value = try await command("GET", "element/active") as? [String: Any]
        guard let id = value?[Self.elementKey] as? String else { return "" }
        if let attr = try await command("GET", "element/\(id)/attribute/id") as? String, !attr.isEmpty { return attr }
        return try await command("GET", "element/\(id)/attribute/name") as? String ?? ""
    }

    /// Waits until the URL satisfies `predicate` (after a redirect chain, for instance).
    func waitForURL(timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let url = try await currentURL()
            if predicate(url) { return url }
            if ContinuousClock.now > deadline { throw Failure(description: "the browser stayed at \(url)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the first element matching `css` exists and its text satisfies `predicate`; returns the text.
    func waitForText(_ css: String, timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) async throws
        -> String
    {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while true {
            if try await exists(css) {
                last = (try? await text(css)) ?? ""
                if predicate(last) { return last }
            }
            if ContinuousClock.now > deadline {
                throw Failure(description: "\(css) never showed the expected text (last: \(last))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Saves a PNG of the page as `artifacts/screenshots/<test>-<n>-<name>.png`.
    @discardableResult
    func screenshot(_ name: String) async throws -> URL {
        guard let base64 = try await command("GET", "screenshot") as? String, let data = Data(base64Encoded: base64)
        else {
            throw Failure(description: "no screenshot")
        }
        shots += 1
        let file = screenshotDirectory.appendingPathComponent(
            "\(testName)-\(String(format: "%02d", shots))-\(name).png")
        try data.write(to: file)
        return file
    }

    func quit() async {
        _ = try? await Self.request("DELETE", base.appendingPathComponent("session/\(sessionID)"), nil)
        // chromedriver ignores SIGTERM; the browser is already closed by the DELETE above.
        await process.kill()
        await Self.removeWhenChromiumHasExited(profile)
    }

    /// Removes `profile` once no process names it on its command line (`--user-data-dir`, and the paths inside it
    /// the helpers get), found by `/proc/*/cmdline` on Linux.
    ///
    /// The DELETE above closes the browser, but its helper processes (renderer, GPU, utility) may still be
    /// shutting down and writing into the profile; a removal racing them can leave a folder behind. Waits at
    /// most 10 s; a folder still left then is removed at exit (see `ScratchDirectory`).
    static func removeWhenChromiumHasExited(_ profile: ScratchDirectory) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, processesExist(mentioning: profile.path) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        profile.remove()
    }

    /// Whether any process has `text` in its command line.
    static func processesExist(mentioning text: String) -> Bool {
        let pids =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.contains { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).contains(text)
        }
    }

    // MARK: Plumbing

    /// One WebDriver call. AsyncHTTPClient rather than URLSession: FoundationNetworking fails on
    /// chromedriver's replies with "Failed writing header".
    static func request(_ method: String, _ url: URL, _ body: [String: Any]?) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 64 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
        return (Int(response.status.code), object)
    }
}
