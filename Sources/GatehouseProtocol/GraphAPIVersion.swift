import Foundation

/// Graph API version strings, the first path segment of every versioned URL (`/v21.0/me`).
///
/// Clients in the wild send anything from `v2.8` (facebook-sdk 3.1.0) to `v24.0` (social-core),
/// and Facebook answers all of them the same way for the endpoints emulated here, so any
/// well-formed version is accepted rather than a fixed list.
package enum GraphAPIVersion {
    /// The version this server reports in `facebook-api-version` when the request names none;
    /// the iOS SDK 18's default.
    package static let current = "v21.0"

    /// Returns `segment` if it is exactly `v<digits>.<digits>`, else nil.
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
