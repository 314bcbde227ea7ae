import Foundation

/// Opens a URL in the person's web browser.
public protocol BrowserOpening: Sendable {
    /// Opens `url`; false when no browser could be started.
    func open(_ url: URL) async -> Bool
}

/// The system browser: `open` on macOS, `xdg-open` on Linux desktops.
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

    /// Whether a graphical session is available to show a browser in.
    public var hasGraphicalSession: Bool {
        #if os(Linux)
        return !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        #else
        return true
        #endif
    }

    /// Runs `open` / `xdg-open`; false when it cannot or the command fails.
    public func open(_ url: URL) async -> Bool {
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
