import Foundation

/// The Graph API's test for the URLs a post or a feed dialog carries.
package enum WebURL {
    /// True for an absolute http(s) URL with a host, at most 2,048 characters long.
    package static func isWebURL(_ text: String) -> Bool {
        guard text.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }
}
