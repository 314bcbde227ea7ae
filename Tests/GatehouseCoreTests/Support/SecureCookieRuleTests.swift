import GatehouseCore
import Testing

/// Cookies are `Secure` everywhere except on loopback addresses (where browsers allow plain http).
@Suite struct SecureCookieRuleTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", false), ("http://localhost:8080", false), ("http://app.localhost", false),
        ("http://[::1]:8080", false),
        ("https://login.example.com", true), ("http://login.example.com", true), ("http://192.168.1.20:8080", true),
        ("http://gatehouse.test", true),
    ])
    func secureOutsideLoopback(url: String, secure: Bool) {
        #expect(GatehouseConfiguration(publicURL: url).usesSecureCookies == secure)
    }

    @Test func defaultsFollowTheBindAddress() {
        #expect(GatehouseConfiguration(host: "127.0.0.1").usesSecureCookies == false)
        #expect(GatehouseConfiguration(host: "0.0.0.0").usesSecureCookies == true)
    }
}
