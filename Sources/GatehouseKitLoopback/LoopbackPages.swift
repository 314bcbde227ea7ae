import Foundation
import GatehouseProtocol

/// What the loopback listener does with one request to its callback paths (pure).
///
/// Code flows put the result in the query, which reaches the listener. Token flows put it in the
/// fragment, which browsers never send: `/callback` then serves a page whose script re-sends the
/// fragment to `/callback/complete` as a query.
public enum LoopbackRoute: Sendable, Equatable {
    /// Finish the login with this callback URL, rebuilt on the redirect URI.
    case complete(callbackURL: URL)
    /// Serve the page that relays `location.hash` to `/callback/complete`.
    case relayFragment

    /// Where the dialog redirects.
    public static let callbackPath = "/callback"
    /// Where the relay script re-sends the fragment.
    public static let completePath = "/callback/complete"

    /// The route for a GET of `path` with raw `query`; nil for paths the listener does not serve.
    public static func route(path: String, query: String?, redirectURI: String) -> LoopbackRoute? {
        let query = query ?? ""
        switch path {
        case callbackPath:
            return query.isEmpty
                ? .relayFragment : URL(string: redirectURI + "?" + query).map { .complete(callbackURL: $0) }
        case completePath:
            // The relayed fragment goes back where the dialog put it, so the SDK reads it as a fragment.
            return URL(string: redirectURI + (query.isEmpty ? "" : "#" + query)).map { .complete(callbackURL: $0) }
        default:
            return nil
        }
    }
}

/// The small HTML pages the loopback listener shows in the browser tab.
public enum LoopbackPage: Sendable, Equatable {
    /// The dialog returned a result; the program takes it from here.
    case finished
    case cancelled
    case failed(message: String)
    /// Script that re-sends the fragment, with a `<noscript>` explanation.
    case fragmentRelay
    /// A second callback after the login already ended.
    case alreadyHandled

    /// The page for a callback's parameters, by the same rules the SDK uses to read them.
    public static func ending(forCallback url: URL) -> LoopbackPage {
        // The feed and requests dialogs (`WebDialog`) answer with `post_id` / `request`, or `error_code` 4201 on cancel.
        let parameters = LoginCallback.parameters(of: url)
        if parameters["post_id"] != nil || parameters["request"] != nil { return .finished }
        if parameters["error_code"] == "4201" { return .cancelled }
        switch LoginCallback(url: url)?.outcome {
        case .success?: return .finished
        case .failed(_, _, let message)?: return .failed(message: message)
        case .cancelled?, nil: return .cancelled
        }
    }

    /// The whole HTML document.
    public var html: String {
        switch self {
        case .finished:
            return Self.document(
                title: "Login finished",
                body: "<h1>Login finished</h1><p>You can close this tab and return to the application.</p>")
        case .cancelled:
            return Self.document(
                title: "Login cancelled",
                body: "<h1>Login cancelled</h1><p>You can close this tab and return to the application.</p>")
        case .failed(let message):
            return Self.document(
                title: "Login failed",
                body:
                    "<h1>Login failed</h1><p>\(Self.escape(message))</p><p>You can close this tab and return to the application.</p>"
            )
        case .fragmentRelay:
            return Self.document(
                title: "Finishing login",
                body: """
                    <h1>Finishing login…</h1>
                    <script>
                    if (location.hash.length > 1) {
                      location.replace('\(LoopbackRoute.completePath)?' + location.hash.substring(1));
                    } else {
                      document.querySelector('h1').textContent = 'Nothing to finish here';
                    }
                    </script>
                    <noscript><p>JavaScript is turned off, so this page cannot hand the login result to the application. \
                    Turn JavaScript on and reload this page.</p></noscript>
                    """)
        case .alreadyHandled:
            return Self.document(
                title: "Login already finished",
                body: "<h1>Login already finished</h1><p>You can close this tab.</p>")
        }
    }

    private static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
        <title>\(title)</title></head>
        <body>
        \(body)
        </body></html>

        """
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}
