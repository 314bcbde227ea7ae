import Foundation

/// What the server's own outbound HTTP requests may reach and trust, written once for all of them: apps'
/// deauthorize and data-deletion callbacks, Webhooks verification requests and notifications, and event sinks.
///
/// Production mode refuses callbacks to internal addresses (server-side request forgery) and plain `http://`;
/// an operator whose receivers live on an internal network names those networks here, and gives the private CA
/// that issued their certificates.
package struct OutboundConfiguration: Sendable, Equatable {
    /// Addresses or CIDR ranges (`10.20.0.0/16`, `fd12::/48`) that production mode's callback rules let through
    /// although they are internal. Empty by default. `https://` is still required.
    package var allowedNetworks: [String] = []
    /// A PEM file of CA certificates trusted for `https://` callbacks and sinks, besides the system's roots.
    package var caFile: String?

    package init(allowedNetworks: [String] = [], caFile: String? = nil) {
        self.allowedNetworks = allowedNetworks
        self.caFile = caFile
    }
}
