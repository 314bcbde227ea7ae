import Foundation
import GatehouseProtocol

/// Decides whether a `redirect_uri` may receive codes and tokens for an app.
///
/// Exact string match against the registered list (RFC 9700 §2.1), with two documented exceptions:
/// the iOS SDK's `fb{appid}{suffix}://authorize/` scheme, and loopback URLs (RFC 8252 §7.3) where only the
/// port may differ from a registered loopback URI. The loopback host must match too: a registered `127.0.0.1`
/// does not admit `localhost` or `[::1]` (RFC 8252 §8.3: `localhost` may resolve elsewhere, and another
/// program may own the same port on the other address family).
package enum RedirectURIPolicy {
    package static func isAllowed(_ uri: String, for app: AppRecord) -> Bool {
        if app.redirectURIs.contains(uri) { return true }
        // The JavaScript SDK's popup hand-back on Gatehouse itself, for a page on one of the app's allowed domains.
        if let origin = JavaScriptSDKArbiter.pageOrigin(uri) { return JavaScriptSDKDomains.allows(origin, for: app) }
        if isAppScheme(uri, appID: app.id) { return true }
        guard let requested = Loopback(uri) else { return false }
        return app.redirectURIs.compactMap(Loopback.init).contains {
            $0.host == requested.host && $0.pathAndQuery == requested.pathAndQuery
        }
    }

    /// `fb{appid}://authorize/` or `fb{appid}{suffix}://authorize/` where the suffix is `[a-z0-9]*`.
    package static func isAppScheme(_ uri: String, appID: String) -> Bool {
        let prefix = "fb\(appID)"
        guard uri.hasPrefix(prefix), let sep = uri.range(of: "://") else { return false }
        let suffix = uri[uri.index(uri.startIndex, offsetBy: prefix.count)..<sep.lowerBound]
        guard suffix.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }) else { return false }
        let rest = uri[sep.upperBound...]
        return rest == "authorize" || rest == "authorize/"
    }

    /// The most redirect URIs one app may register, and the longest one. Every dialog compares its
    /// `redirect_uri` with the app's list, so the list is bounded where it is written (issue 27, finding 2).
    package static let maximumPerApp = 100
    package static let maximumLength = 2048

    /// Why `uris` cannot be an app's registered list, or nil when it can.
    package static func registrationProblem(_ uris: [String]) -> String? {
        guard uris.count <= maximumPerApp else { return "An app registers at most \(maximumPerApp) redirect URIs." }
        if let bad = uris.first(where: { $0.utf8.count > maximumLength || !isAcceptableRegistration($0) }) {
            return
                "Redirect URI \"\(GraphError.echo(bad))\" must be an absolute URL without a fragment, of at most \(maximumLength) characters."
        }
        return nil
    }

    /// Registrations must be absolute URLs without a fragment.
    package static func isAcceptableRegistration(_ uri: String) -> Bool {
        guard let comps = URLComponents(string: uri), let scheme = comps.scheme, !scheme.isEmpty else { return false }
        return comps.fragment == nil && (comps.host?.isEmpty == false || scheme.hasPrefix("fb"))
    }

    /// A plain-http URL on 127.0.0.1, localhost or [::1], reduced to what must match exactly (all but the port).
    package struct Loopback {
        /// `127.0.0.1`, `localhost` or `::1`.
        let host: String
        let pathAndQuery: String

        init?(_ uri: String) {
            guard let comps = URLComponents(string: uri), comps.scheme == "http", comps.fragment == nil,
                comps.user == nil, comps.password == nil,
                let host = comps.host, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
            else { return nil }
            self.host = host == "[::1]" ? "::1" : host
            let path = comps.percentEncodedPath.isEmpty ? "/" : comps.percentEncodedPath
            pathAndQuery = path + (comps.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
    }
}
