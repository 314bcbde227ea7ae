import Foundation

/// Windows and scripts: what a test of popups needs beyond ``WebDriver``'s page commands.
extension WebDriver {
    /// The handles of every open window (tab or popup).
    func windowHandles() async throws -> [String] { try await command("GET", "window/handles") as? [String] ?? [] }

    /// The handle of the window commands go to.
    func currentWindow() async throws -> String { try await command("GET", "window") as? String ?? "" }

    /// Sends later commands to `handle`.
    func switchTo(window handle: String) async throws { try await command("POST", "window", ["handle": handle]) }

    /// Closes the current window, as a person closing the popup does.
    func closeWindow() async throws { try await command("DELETE", "window") }

    /// Waits for a window other than `known` to open and switches to it; returns its handle.
    func switchToNewWindow(besides known: [String], timeout: Duration = .seconds(15)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let handle = try await windowHandles().first(where: { !known.contains($0) }) {
                try await switchTo(window: handle)
                return handle
            }
            if ContinuousClock.now > deadline { throw Failure(description: "no popup opened") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until only the windows in `remaining` are open (the popup closed itself).
    func waitForWindows(_ remaining: [String], timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        while Set(try await windowHandles()) != Set(remaining) {
            if ContinuousClock.now > deadline {
                throw Failure(description: "windows still open: \(try await windowHandles())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs `script` in the page (not a click: a popup it opens counts as unrequested) and returns its value.
    @discardableResult
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": script, "args": arguments])
    }
}
