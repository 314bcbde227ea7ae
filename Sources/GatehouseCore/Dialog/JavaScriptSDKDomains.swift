import Foundation
import GatehouseProtocol

/// "Allowed Domains for the JavaScript SDK": which web pages may log in to an app through Gatehouse's `/sdk.js`.
///
/// An entry is a URL such as `https://shop.example/` (Facebook's console asks for https URLs). A page matches when
/// its origin (scheme, host and port; a missing port is the scheme's default) equals an entry's; the path is
/// ignored. There are no wildcards: `https://shop.example` does not admit `https://www.shop.example`.
package enum JavaScriptSDKDomains {
    /// The most entries one app may list, and the longest one.
    package static let maximumPerApp = 100
    package static let maximumLength = 512

    /// Whether `origin` (a page's `window.location.origin`) is one of `app`'s allowed domains.
    package static func allows(_ origin: String, for app: AppRecord) -> Bool {
        guard let page = Origin(origin) else { return false }
        return app.jsSDKDomains.contains { Origin($0) == page }
    }

    /// Why `entries` cannot be an app's list, or nil when it can.
    package static func registrationProblem(_ entries: [String]) -> String? {
        guard entries.count <= maximumPerApp else {
            return "An app lists at most \(maximumPerApp) JavaScript SDK domains."
        }
        if let bad = entries.first(where: { $0.utf8.count > maximumLength || Origin($0) == nil }) {
            return
                "JavaScript SDK domain \"\(GraphError.echo(bad))\" must be an http or https URL such as "
                + "https://shop.example/, of at most \(maximumLength) characters."
        }
        return nil
    }

    /// `scheme://host[:port]` as a page's `location.origin` spells it, or nil when `url` is no http(s) URL.
    package static func canonical(_ url: String) -> String? { Origin(url)?.text }

    /// A scheme, host and port, compared exactly (the host case-insensitively).
    struct Origin: Equatable {
        let scheme: String
        let host: String
        let port: Int

        init?(_ text: String) {
            guard let comps = URLComponents(string: text), let scheme = comps.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = comps.host?.lowercased(), !host.isEmpty,
                comps.user == nil, comps.password == nil
            else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = comps.port ?? (scheme == "https" ? 443 : 80)
        }

        var text: String {
            let defaultPort = scheme == "https" ? 443 : 80
            let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return "\(scheme)://\(shownHost)" + (port == defaultPort ? "" : ":\(port)")
        }
    }
}

/// The JavaScript SDK's hand-back page: a login or share dialog opened by `/sdk.js` in a popup returns to
/// `/x/connect/xd_arbiter?origin=<page origin>` on Gatehouse itself, whose script passes the result to the opener.
///
/// The `redirect_uri` is a path without scheme or host, so it can only ever resolve to the Gatehouse that served the
/// dialog; the page origin in it must be one of the app's JavaScript SDK domains, and the hand-back page posts only
/// to that origin.
package enum JavaScriptSDKArbiter {
    package static let path = "/x/connect/xd_arbiter"

    /// The page origin named by an arbiter `redirect_uri`, or nil when `uri` is not the arbiter.
    package static func pageOrigin(_ uri: String) -> String? {
        guard uri.hasPrefix(path + "?"), let comps = URLComponents(string: uri), comps.path == path,
            let origin = comps.queryItems?.first(where: { $0.name == "origin" })?.value
        else { return nil }
        return origin
    }
}
