import Foundation
#if canImport(Subprocess)
internal import Subprocess
#if canImport(System)
internal import System
#else
internal import SystemPackage
#endif
#endif

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
    /// Runs a command detached from this program's terminal (no input, output discarded); true when it exits with
    /// status 0. swift-subprocess rather than Foundation's `Process`, whose `run()` in Swift 6.3 on Linux can read
    /// past a `readdir` buffer and trap in a process that holds many descriptors (see docs/TESTING.md).
    static func run(_ executable: String, _ arguments: [String]) async -> Bool {
        do {
            let result = try await Subprocess.run(
                .path(FilePath(executable)), arguments: Arguments(arguments), input: .none, output: .discarded,
                error: .discarded)
            return result.terminationStatus.isSuccess
        } catch {
            return false
        }
    }
    #endif
}
