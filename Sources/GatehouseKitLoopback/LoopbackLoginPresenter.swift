import Foundation
import GatehouseKit

/// Why a loopback login could not finish.
public enum LoopbackLoginError: Error, Equatable, CustomStringConvertible {
    /// No callback reached the listener in time.
    case timedOut(Duration)
    /// The listener stopped before it could receive the callback.
    case listenerStopped

    /// A sentence for the person.
    public var description: String {
        switch self {
        case .timedOut(let limit):
            "No login callback arrived within \(limit.components.seconds) seconds; the login was abandoned."
        case .listenerStopped: "The loopback listener stopped before the login finished."
        }
    }
}

/// Logs in from a desktop or command-line program with the system browser and a loopback redirect
/// (RFC 8252): `http://127.0.0.1:PORT/callback` on a free port, listening only for this one login.
///
/// ```swift
/// let manager = LoginManager(presenter: LoopbackLoginPresenter())
/// let result = try await manager.logIn(permissions: ["email"])
/// ```
///
/// The dialog URL is always written to `output` on a line of its own, so a person (or a script) can
/// open it when no browser starts. The browser tab then shows whether the login finished.
public final class LoopbackLoginPresenter: LoginDialogPresenting, @unchecked Sendable {
    /// Opens the dialog URL.
    public let browser: any BrowserOpening
    /// How long a login may take, counted from `prepare()`; then it fails with `LoopbackLoginError.timedOut`.
    public let timeout: Duration
    /// The loopback address to listen on.
    public let host: String
    private let output: @Sendable (String) -> Void
    private let lock = NSLock()
    private var listeners: [String: LoopbackListener] = [:]

    /// - Parameters:
    ///   - output: receives the lines shown to the person, the dialog URL among them; standard output by default.
    public init(
        browser: any BrowserOpening = SystemBrowserOpener(), timeout: Duration = .seconds(300),
        host: String = "127.0.0.1",
        output: @escaping @Sendable (String) -> Void = LoopbackLoginPresenter.standardOutput
    ) {
        self.browser = browser
        self.timeout = timeout
        self.host = host
        self.output = output
    }

    /// Writes a line to standard output at once. `print` is block-buffered when the output is a pipe, and a
    /// program (or test) reading the dialog URL from the pipe would then wait for the login to end first.
    public static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Starts this login's listener on a free port and returns its redirect URI.
    public func prepare() async throws -> String {
        let listener = try await LoopbackListener.start(host: host, timeout: timeout)
        lock.withLock { listeners[listener.redirectURI] = listener }
        return listener.redirectURI
    }

    /// Prints the URL, opens the browser, waits for the callback, and shuts the listener down.
    public func present(_ url: URL) async throws -> URL? {
        let redirectURI = URLComponents(url: url, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "redirect_uri" }?.value
        guard let redirectURI, let listener = lock.withLock({ listeners.removeValue(forKey: redirectURI) }) else {
            throw CoreError(
                .invalidArgument, message: "the dialog URL's redirect_uri does not come from this presenter's prepare()"
            )
        }
        do {
            if Task.isCancelled {
                await listener.stop()
                return nil
            }
            output("Log in with the dialog in your browser. If it does not open, open this URL:")
            output(url.absoluteString)
            if await !browser.open(url) {
                output("No browser could be opened; open the URL above to continue.")
            }
            let callback = try await listener.wait()
            await listener.stop()
            return callback
        } catch {
            await listener.stop()
            throw error
        }
    }
}
