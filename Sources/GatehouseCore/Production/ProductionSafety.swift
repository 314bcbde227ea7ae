import Foundation

/// The checks production mode runs before it listens. Each problem names the setting and the fix.
///
/// Pure: the caller passes in what it found on disk, so every rule is unit-tested.
package enum ProductionSafety {
    /// What the checks need to know besides the configuration.
    package struct Facts: Sendable {
        /// The data directory holds the development seed file (published demo secrets and passwords).
        package var devSeedPresent: Bool
        /// The database holds the development seed's demo app.
        package var devSeedAppPresent: Bool
        package init(devSeedPresent: Bool = false, devSeedAppPresent: Bool = false) {
            self.devSeedPresent = devSeedPresent
            self.devSeedAppPresent = devSeedAppPresent
        }
    }

    /// Every reason the configuration is unsafe for production; empty when it may start.
    package static func problems(_ c: GatehouseConfiguration, facts: Facts) -> [String] {
        guard c.isProduction else { return [] }
        var problems: [String] = []
        let proxied = !c.trustedProxies.isEmpty
        if (c.tlsCertificatePath == nil) != (c.tlsKeyPath == nil) {
            problems.append("tls_cert and tls_key must be given together (--tls-cert and --tls-key)")
        }
        if c.publicURL == nil {
            problems.append(
                "public_url is not set: production needs the https:// URL people reach the server at (--public-url)")
        } else if let url = c.publicURL, !url.lowercased().hasPrefix("https://") {
            problems.append(
                "public_url \(url) is not https://: browsers would send session cookies in clear; use an https:// URL")
        }
        if c.publicURL?.lowercased().hasPrefix("https://") == true, !c.servesTLS, !proxied {
            problems.append(
                "public_url is https:// but this server serves plain HTTP and trusts no proxy: serve TLS "
                    + "(--tls-cert/--tls-key) or name the TLS-terminating proxy (--trusted-proxy)"
            )
        }
        if isWildcard(c.host), !c.servesTLS, !proxied {
            problems.append(
                "host \(c.host) listens on every interface without TLS or a trusted proxy: serve TLS "
                    + "(--tls-cert/--tls-key), set --trusted-proxy, or bind 127.0.0.1"
            )
        }
        if c.trustedProxies.contains(where: { $0.hasSuffix("/0") }) {
            problems.append(
                "trusted_proxies contains a /0 range: every client could forge X-Forwarded-For; list the proxies' own addresses"
            )
        }
        if facts.devSeedPresent || facts.devSeedAppPresent {
            problems.append(
                "the data directory holds the development seed (dev-seed.json / the demo app, whose secret and "
                    + "passwords are published): use a fresh data directory or database for production"
            )
        }
        if c.benchRoutes {
            problems.append("bench_routes is on: the /bench routes are for scripts/bench only")
        }
        if c.effectivePasswordCost < PasswordCost.productionFloor {
            problems.append(
                "password_cost \(c.effectivePasswordCost) is below production's floor of \(PasswordCost.productionFloor): "
                    + "remove it (the default is \(PasswordCost.production)) or set it to at least "
                    + "\(PasswordCost.productionFloor)")
        }
        if c.limits.loginAttemptsPerAccount == 0 || c.limits.loginAttemptsPerIP == 0 {
            problems.append(
                "password attempt limits are off (limits.login_attempts_per_account / _per_ip = 0): set them above 0")
        }
        return problems
    }

    package static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", "*", ""].contains(host)
    }
}

/// Thrown when production mode refuses to start.
package struct UnsafeConfigurationError: Error, CustomStringConvertible {
    package var problems: [String]
    package var description: String {
        "production mode refuses to start:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }

    package init(problems: [String]) {
        self.problems = problems
    }
}
