import Foundation
import GatehouseCore
import Testing

@Suite struct ProductionSafetyTests {
    static func production(_ change: (inout GatehouseConfiguration) -> Void = { _ in }) -> GatehouseConfiguration {
        var c = GatehouseConfiguration(
            host: "127.0.0.1", port: 8443, publicURL: "https://login.example.com", mode: .production,
            tlsCertificatePath: "/etc/gh/cert.pem", tlsKeyPath: "/etc/gh/key.pem")
        change(&c)
        return c
    }

    @Test func aSafeProductionConfigurationHasNoProblems() {
        #expect(ProductionSafety.problems(Self.production(), facts: .init()) == [])
        // Behind a TLS-terminating proxy instead of serving TLS itself.
        let proxied = Self.production {
            $0.tlsCertificatePath = nil; $0.tlsKeyPath = nil; $0.host = "0.0.0.0"; $0.trustedProxies = ["10.0.0.5"]
        }
        #expect(ProductionSafety.problems(proxied, facts: .init()) == [])
    }

    @Test func developmentModeIsNeverRefused() {
        let dev = GatehouseConfiguration(host: "0.0.0.0", benchRoutes: true)
        #expect(ProductionSafety.problems(dev, facts: .init(devSeedPresent: true)) == [])
    }

    @Test func eachUnsafeSettingIsNamed() {
        func problems(_ change: (inout GatehouseConfiguration) -> Void, facts: ProductionSafety.Facts = .init())
            -> [String]
        {
            ProductionSafety.problems(Self.production(change), facts: facts)
        }
        #expect(
            problems { $0.publicURL = nil } == [
                "public_url is not set: production needs the https:// URL people reach the server at (--public-url)"
            ])
        #expect(
            problems { $0.publicURL = "http://login.example.com" } == [
                "public_url http://login.example.com is not https://: browsers would send session cookies in clear; use an https:// URL"
            ])
        #expect(
            problems { $0.tlsKeyPath = nil } == [
                "tls_cert and tls_key must be given together (--tls-cert and --tls-key)",
                "public_url is https:// but this server serves plain HTTP and trusts no proxy: serve TLS "
                    + "(--tls-cert/--tls-key) or name the TLS-terminating proxy (--trusted-proxy)",
            ])
        let open = problems {
            $0.tlsCertificatePath = nil; $0.tlsKeyPath = nil; $0.host = "0.0.0.0"
        }
        #expect(
            open.contains(
                "host 0.0.0.0 listens on every interface without TLS or a trusted proxy: serve TLS "
                    + "(--tls-cert/--tls-key), set --trusted-proxy, or bind 127.0.0.1"
            ))
        #expect(
            problems { $0.trustedProxies = ["0.0.0.0/0"] } == [
                "trusted_proxies contains a /0 range: every client could forge X-Forwarded-For; list the proxies' own addresses"
            ])
        #expect(
            problems({ _ in }, facts: .init(devSeedPresent: true)) == [
                "the data directory holds the development seed (dev-seed.json / the demo app, whose secret and "
                    + "passwords are published): use a fresh data directory or database for production"
            ])
        #expect(
            problems { $0.benchRoutes = true } == ["bench_routes is on: the /bench routes are for scripts/bench only"])
        #expect(
            problems { $0.limits.loginAttemptsPerIP = 0 } == [
                "password attempt limits are off (limits.login_attempts_per_account / _per_ip = 0): set them above 0"
            ])
    }

    @Test func productionMeansSecureCookiesAndDevelopmentFeaturesOff() {
        let prod = Self.production { $0.publicURL = "http://internal" }
        #expect(prod.usesSecureCookies)
        #expect(!prod.isDevelopment)
        let dev = GatehouseConfiguration(publicURL: "http://127.0.0.1:8080")
        #expect(!dev.usesSecureCookies)
        #expect(dev.isDevelopment)
        #expect(GatehouseConfiguration(tlsCertificatePath: "c", tlsKeyPath: "k").baseURL == "https://127.0.0.1:8080")
    }
}
