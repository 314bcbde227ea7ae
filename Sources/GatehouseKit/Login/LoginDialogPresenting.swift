import Foundation

/// Shows the login dialog and hands back where it redirected: the browser-facing half of a login.
///
/// `LoginManager` calls `prepare()` first, builds the dialog URL with the redirect URI it returns, then
/// calls `present(_:)` once with that URL. Presenters that must choose something before the URL exists
/// (the loopback presenter binds a free port) do it in `prepare()`. Every callback URL goes through the
/// same parser in `LoginManager`, so presenters never interpret it.
public protocol LoginDialogPresenting: Sendable {
    /// Gets ready to receive one login's callback and returns the `redirect_uri` the dialog must use.
    func prepare() async throws -> String

    /// Shows the dialog at `url` and returns the URL it redirected to, or nil when the person cancelled
    /// (closed the browser, came back to the app without finishing). Cancelling the calling task must
    /// end the wait promptly with nil: `LoginManager` does that when a newer login supersedes this one.
    func present(_ url: URL) async throws -> URL?
}

/// Something waiting for the app to be opened with a login callback URL (Facebook's `pendingURLOpener`).
public protocol LoginURLHandling: AnyObject, Sendable {
    /// Takes a URL the app was opened with; true when it was the awaited login callback.
    func handleOpen(url: URL) -> Bool
    /// The app became active again; a login still waiting for its callback ends as cancelled.
    func handleDidBecomeActive()
}
