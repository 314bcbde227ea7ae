/// A bounded-cardinality name for a request path, used as the `route` label in metrics and logs.
///
/// Ids become `{id}`, unknown words `{x}`, the version prefix is dropped and only four segments are kept, so
/// neither a flood of random paths nor an id in the path can blow up the number of time series — and a
/// secret accidentally put in a path never reaches a label or a log line.
package enum RouteLabel {
    static let vocabulary: Set<String> = [
        "me", "friends", "permissions", "picture", "accounts", "test-users", "oauth", "access_token",
        "access_token_info", "debug_token", "dialog", "login", "logout", "consent", "console", "admin", "settings",
        "apps", "pictures", "static", "gatehouse.css", ".well-known", "openid-configuration", "openid", "jwks",
        "certs", "keys", "healthz", "readyz", "metrics", "bench", "hello", "id_token", "profile", "callback",
        "users", "tokens", "clock", "inject", "explorer", "export", "import", "feed", "apprequests", "device", "fql",
        "sdk.js", "x", "connect", "xd_arbiter", "status",
    ]

    package static func classify(_ path: String) -> String {
        // The Graph API's busiest paths (`/me`, `/debug_token`) are one known word: they are their own label.
        if path.utf8.first == UInt8(ascii: "/"), !path.utf8.dropFirst().contains(UInt8(ascii: "/")),
            vocabulary.contains(String(path.utf8.dropFirst())!)
        {
            return path
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if let first = segments.first, first.first == "v", first.dropFirst().allSatisfy({ $0.isNumber || $0 == "." }),
            first.count > 1
        {
            segments.removeFirst()
        }
        guard !segments.isEmpty else { return "/" }
        var out: [String] = []
        for segment in segments.prefix(4) {
            let text = String(segment)
            if vocabulary.contains(text) {
                out.append(text)
            } else if text.allSatisfy(\.isNumber) {
                out.append("{id}")
            } else {
                out.append("{x}")
            }
        }
        return "/" + out.joined(separator: "/") + (segments.count > 4 ? "/…" : "")
    }
}
