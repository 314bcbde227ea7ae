import Foundation
import GatehouseCore
import Testing

@Suite struct RedirectURIPolicyTests {
    let app = AppRecord(
        id: "1234567890123456", secret: "s", clientToken: "c", name: "A",
        redirectURIs: ["https://app.example.com/callback", "http://127.0.0.1/cb", "http://localhost:3000/auth?x=1"],
        createdAt: Date(timeIntervalSince1970: 0))

    @Test(arguments: [
        "https://app.example.com/callback", "fb1234567890123456://authorize/", "fb1234567890123456://authorize",
        "fb1234567890123456suffix1://authorize/", "http://127.0.0.1:5555/cb", "http://127.0.0.1/cb",
        "http://localhost:8080/auth?x=1",
    ])
    func allowed(_ uri: String) { #expect(RedirectURIPolicy.isAllowed(uri, for: app)) }

    @Test(arguments: [
        "https://app.example.com/callback/", "https://APP.example.com/callback", "https://app.example.com/callback?x=1",
        "https://app.example.com/Callback", "https://app.example.com/callback#frag",
        "https://evil.example.com/callback",
        "fb999://authorize/", "fb1234567890123456://other/", "fb1234567890123456SUFFIX://authorize/",
        "http://127.0.0.1:5555/other",
        "https://127.0.0.1:5555/cb", "http://127.0.0.2/cb", "http://user@127.0.0.1/cb",
        "http://127.0.0.1:8080/auth?x=2", "",
        // Issue 12, finding 13: the loopback host must match the registration's (only the port may vary).
        "http://127.0.0.1:8080/auth?x=1", "http://localhost:5555/cb", "http://localhost:9/cb", "http://[::1]:5555/cb",
    ])
    func refused(_ uri: String) { #expect(!RedirectURIPolicy.isAllowed(uri, for: app)) }

    @Test func registrationNeedsAnAbsoluteURL() {
        #expect(RedirectURIPolicy.isAcceptableRegistration("https://a.example/cb"))
        #expect(!RedirectURIPolicy.isAcceptableRegistration("/cb"))
        #expect(!RedirectURIPolicy.isAcceptableRegistration("https://a.example/cb#x"))
    }
}
