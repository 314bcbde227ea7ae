import Foundation

/// Graph API version strings, the first path segment of every versioned URL (`/v27.0/me`).
///
/// Clients in the wild send anything from `v2.8` (facebook-sdk 3.1.0) to today's version, and Facebook answers
/// every version it released (a retired one as the oldest still available, which Gatehouse answers in its era's
/// shape where the shapes differ; see `GraphAPIVersion+Eras.swift`). A segment shaped like a version that Facebook
/// never released (`v99.0`, `v2.13`) is refused as Facebook refuses it (``GraphError/unknownVersion(_:rest:)``).
package enum GraphAPIVersion {
    /// Every Graph API version Facebook released, oldest first, from Facebook's changelog
    /// (developers.facebook.com/docs/graph-api/changelog/versions): v1.0 (April 2010), v2.0 to v2.12 (April 2014 to
    /// January 2018), v3.0 to v3.3 (May 2018 to April 2019), then one major version a release from v4.0
    /// (July 2019) to v27.0 (November 4, 2026). A new release is one more number at the end of this list.
    package static let released: [String] =
        ["v1.0"] + (0...12).map { "v2.\($0)" } + (0...3).map { "v3.\($0)" } + (4...27).map { "v\($0).0" }

    /// Facebook's current version: the last one released. The server answers a call without a version at it
    /// (`default_graph_version`), sends it in `facebook-api-version`, and the SDK's `Settings.graphAPIVersion`,
    /// the console, the seed and the examples use it.
    package static let current = released[released.count - 1]

    private static let releasedSet = Set(released)

    /// Whether Facebook released `version` (`v2.8`, `v27.0`); false for `v99.0`, `v2.13` or text that is not a
    /// version at all.
    package static func isReleased(_ version: some StringProtocol) -> Bool {
        releasedSet.contains(String(version))
    }

    /// Returns `segment` if it is exactly `v<digits>.<digits>`, else nil. This is the shape only; whether
    /// Facebook released it is ``isReleased(_:)``.
    package static func parse(pathSegment segment: some StringProtocol) -> String? {
        let bytes = Array(segment.utf8)
        guard bytes.first == UInt8(ascii: "v"), let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
            return nil
        }
        let major = bytes[1..<dot]
        let minor = bytes[(dot + 1)...]
        guard !major.isEmpty, !minor.isEmpty, major.allSatisfy(isDigit), minor.allSatisfy(isDigit) else {
            return nil
        }
        return String(segment)
    }

    /// Splits a request path into its version (if the first segment is one) and the remaining
    /// segments, so routers can serve `/v19.0/me` and `/me` alike.
    package static func split(path: String) -> (version: String?, segments: [String]) {
        var segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let first = segments.first, let version = parse(pathSegment: first) else {
            return (nil, segments)
        }
        segments.removeFirst()
        return (version, segments)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

extension GraphError {
    /// A call whose first segment is shaped like a version Facebook never released (`/v99.0/me`, `/v2.13/me`).
    /// Facebook does not know it for a version, so it reads the segment as an object id, and what follows as a path
    /// it does not have: `(#2500) Unknown path components: /me`, an OAuthException with status 400, answered at the
    /// app's default version. Captured answers: `/v2.80/{id}/feed` ("Unknown path components: /{id}/feed",
    /// koala issue 611) and a doubled `/v2.1/v2.1/{id}/feed` (the same, koala pull request 405), where the segment
    /// after the version was read as an id. With nothing after it, the segment is an object that does not exist.
    package static func unknownVersion(_ version: String, rest: [String], method: String) -> GraphError {
        var error =
            rest.isEmpty
            ? unsupportedRequest(method: method, objectID: version)
            : unknownPath("/" + rest.joined(separator: "/"))
        error.explanation =
            "\(echo(version)) is not a Graph API version Facebook released (the current one is "
            + "\(GraphAPIVersion.current)), so Facebook reads it as an object id and refuses the path"
        return error
    }
}
