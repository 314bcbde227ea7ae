import Foundation

/// Opens a URL in the person's web browser.
public protocol BrowserOpening: Sendable {
    /// Opens `url`; false when no browser could be started.
    func open(_ url: URL) async -> Bool
}

/// The system browser: `$BROWSER` when set, else `open` on macOS and `xdg-open` on Linux desktops.
///
/// On Linux without `DISPLAY` or `WAYLAND_DISPLAY` it does not try: `xdg-open` would fall back to a text
/// browser that takes over the terminal the program is printing to.
public struct SystemBrowserOpener: BrowserOpening {
    /// The variables that decide whether a graphical session exists.
    public var environment: [String: String]

    /// An opener reading the display variables from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Whether a browser can be shown: a graphical session, or a `BROWSER` command that knows how.
    public var hasGraphicalSession: Bool {
        #if os(Linux)
        return !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
            || !(environment["BROWSER"] ?? "").isEmpty
        #else
        return true
        #endif
    }

    /// Runs `$BROWSER`, `open` or `xdg-open`; false when it cannot or the command fails.
    public func open(_ url: URL) async -> Bool {
        #if os(macOS) || os(Linux)
        // `BROWSER` is the convention `xdg-open`, Python's `webbrowser` and git honour: the first command of a
        // colon-separated list, with `%s` replaced by the URL (or the URL appended).
        if let command = environment["BROWSER"]?.split(separator: ":").first.map(String.init), !command.isEmpty {
            var words = command.split(separator: " ").map(String.init)
            if words.contains(where: { $0.contains("%s") }) {
                words = words.map { $0.replacingOccurrences(of: "%s", with: url.absoluteString) }
            } else {
                words.append(url.absoluteString)
            }
            return await Self.run("/usr/bin/env", words)
        }
        #endif
        #if os(macOS)
        return await Self.run("/usr/bin/open", [url.absoluteString])
        #elseif os(Linux)
        guard hasGraphicalSession else { return false }
        return await Self.run("/usr/bin/env", ["xdg-open", url.absoluteString])
        #else
        return false
        #endif
    }

    #if os(macOS) || os(Linux)
    /// Runs a command detached from this program's terminal; true when it exits with status 0.
    static func run(_ executable: String, _ arguments: [String]) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.terminationHandler = { finished in
                continuation.resume(returning: finished.terminationReason == .exit && finished.terminationStatus == 0)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: false)
            }
        }
    }
    #endif
}
