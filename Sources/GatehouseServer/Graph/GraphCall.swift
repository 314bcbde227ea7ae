import GatehouseCore
import Foundation
import GatehouseProtocol

/// One Graph API request, independent of HTTP, so batch entries run through the same dispatcher.
package struct GraphCall: Sendable {
    typealias Method = GraphMethod

    var method: Method
    /// Path segments after the optional version, e.g. `["me", "permissions"]`.
    var path: [String]
    /// The version named in the path, or the server default.
    var version: String
    /// Query and body parameters merged (body wins).
    var params: [String: String]
    /// From `access_token`, or `Authorization: Bearer|OAuth`.
    var accessToken: String?
    /// `Authorization: Basic` client credentials, for the token endpoint.
    var basicCredentials: (id: String, secret: String)?
    /// The client's IP (behind trusted proxies), for per-IP limits. Batch entries inherit their batch's, so
    /// per-IP limits (the token endpoint's) count every entry; nil only in tests.
    var clientIP: String?
    /// Whether this call is an entry of a batch (a batch inside a batch is refused).
    var insideBatch = false

    func param(_ name: String) -> String? {
        guard let value = params[name], !value.isEmpty else { return nil }
        return value
    }
}
