import Foundation

/// Where Facebook's answers changed between Graph API versions, for the few behaviours Gatehouse answers
/// per version (the seeds' code was written against v1.0/v2.0 and must still see what it saw then).
extension GraphAPIVersion {
    /// The version's `(major, minor)`, or nil for text that is not `v<digits>.<digits>`.
    package static func number(_ version: String) -> (major: Int, minor: Int)? {
        guard parse(pathSegment: version) != nil else { return nil }
        let parts = version.dropFirst().split(separator: ".")
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        return (major, minor)
    }

    /// Whether `version` is `other` or later. A version that does not parse counts as today's (``current``),
    /// the version a request without one is answered at.
    package static func isAtLeast(_ version: String, _ other: String) -> Bool {
        guard let a = number(version) ?? number(current), let b = number(other) else { return true }
        return (a.major, a.minor) >= (b.major, b.minor)
    }

    /// The first version whose calls that succeed without data (removing a permission or the app, deleting
    /// a request) answer `{"success":true}`; earlier versions answered a bare `true`, which is what the
    /// seeds' revoke sample tests (`result == true`). The seeds and the v1.0/v2.0 docs document `true`; a client
    /// comparing the body with `true` first reported failures for working deletions at v2.1 (restfb issue 129).
    package static let successObjectSince = "v2.1"
}
