import GatehouseCore
import Foundation

/// Checks a redirect target taken from a request (`next`) so it can only ever name a page of this server.
///
/// Browsers are lenient where a string check is not: they strip tabs and newlines from URLs (`/\t/evil.example`
/// becomes `//evil.example`), treat `\` like `/`, and follow scheme-relative `//host`. So a target is accepted
/// only when it
/// - is at most 512 bytes and starts with a single `/` (never `//` or `/\`);
/// - contains no control, whitespace or invisible formatting character and no `\` anywhere;
/// - parses as a URL with no scheme and no host;
/// - starts with one of the allowed local paths.
enum LocalRedirect {
    /// `raw` when it is a safe local path under one of `allowed`; nil otherwise.
    static func path(_ raw: String?, allowed: [String], maxBytes: Int = 512) -> String? {
        guard let raw, !raw.isEmpty, raw.utf8.count <= maxBytes, raw.hasPrefix("/") else { return nil }
        let second = raw.dropFirst().first
        guard second != "/", second != "\\", !raw.contains("\\") else { return nil }
        guard !raw.unicodeScalars.contains(where: isForbidden) else { return nil }
        guard let parsed = URLComponents(string: raw), parsed.scheme == nil, parsed.host == nil,
            parsed.percentEncodedPath.hasPrefix("/")
        else { return nil }
        let path = parsed.percentEncodedPath
        guard allowed.contains(where: { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            return nil
        }
        return raw
    }

    /// Control characters (C0, DEL, C1), any Unicode whitespace, and format characters (zero-width, bidi).
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x21 || (0x7F...0x9F).contains(scalar.value) { return true }
        if scalar.properties.isWhitespace { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .unassigned, .privateUse,
            .surrogate:
            return true
        default: return false
        }
    }
}
