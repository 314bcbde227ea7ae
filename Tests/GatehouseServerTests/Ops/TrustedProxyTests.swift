import Foundation
import GatehouseProtocol
import NIOCore
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite struct TrustedProxyTests {
    @Test func ipRangesMatchAddressesAndPrefixes() throws {
        let v4 = try #require(IPRange("10.1.0.0/16"))
        #expect(v4.contains("10.1.200.3"))
        #expect(!v4.contains("10.2.0.1"))
        #expect(v4.contains("::ffff:10.1.0.9"))
        let single = try #require(IPRange("192.168.1.7"))
        #expect(single.contains("192.168.1.7"))
        #expect(!single.contains("192.168.1.8"))
        let v6 = try #require(IPRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1"))
        #expect(!v6.contains("fe80::1"))
        #expect(!v6.contains("10.0.0.1"))
        let odd = try #require(IPRange("172.16.0.0/12"))
        #expect(odd.contains("172.31.255.255"))
        #expect(!odd.contains("172.32.0.0"))
        for bad in ["", "10.0.0.0/33", "proxy.local", "10.0.0/8", "::1/129"] { #expect(IPRange(bad) == nil) }
    }

    @Test func forwardedHeadersAreBelievedOnlyFromTrustedPeers() {
        let trusted = [IPRange("10.0.0.0/8")!, IPRange("127.0.0.1")!]
        // Untrusted peer: its headers are ignored entirely.
        #expect(
            ForwardedClient.resolve(
                peer: "198.51.100.4", forwardedFor: "1.2.3.4", forwardedProto: "https", servesTLS: false,
                trusted: trusted)
                == ForwardedClient(ip: "198.51.100.4", isHTTPS: false))
        // Trusted proxy: the rightmost untrusted hop is the client; a forged leftmost entry is skipped.
        #expect(
            ForwardedClient.resolve(
                peer: "10.0.0.5", forwardedFor: "6.6.6.6, 203.0.113.9, 10.0.0.7", forwardedProto: "https",
                servesTLS: false, trusted: trusted)
                == ForwardedClient(ip: "203.0.113.9", isHTTPS: true))
        // No header: the proxy itself; proto falls back to the connection's.
        #expect(
            ForwardedClient.resolve(
                peer: "127.0.0.1", forwardedFor: nil, forwardedProto: nil, servesTLS: true, trusted: trusted)
                == ForwardedClient(ip: "127.0.0.1", isHTTPS: true))
        // Garbage in the header stops the walk.
        #expect(
            ForwardedClient.resolve(
                peer: "10.0.0.5", forwardedFor: "203.0.113.9, not-an-ip", forwardedProto: "http", servesTLS: false,
                trusted: trusted)
                == ForwardedClient(ip: "10.0.0.5", isHTTPS: false))
    }

    @Test func hstsOnlyWhenAProxyWeTrustSaysHTTPS() async throws {
        for (proxies, expectHSTS) in [(["127.0.0.1"], true), ([String](), false)] {
            let server = try await TestServer.make(configure: { $0.trustedProxies = proxies })
            try await server.run(.live) { client in
                let r = try await client.execute(
                    uri: "/healthz", method: .get, headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
                #expect(r.status == .ok)
                #expect((r.headers[.strictTransportSecurity] == "max-age=31536000; includeSubDomains") == expectHSTS)
                let plain = try await client.execute(uri: "/healthz", method: .get)
                #expect(plain.headers[.strictTransportSecurity] == nil)
            }
        }
    }

    @Test func perIPLoginLimitsUseTheForwardedClientOnlyBehindATrustedProxy() async throws {
        // One failed attempt per IP allowed. Behind the trusted proxy each forwarded client has its own budget;
        // without trust, X-Forwarded-For is ignored and everyone shares the peer's budget.
        for (proxies, secondClientLimited) in [(["127.0.0.1"], false), ([String](), true)] {
            let server = try await TestServer.make(configure: {
                $0.trustedProxies = proxies
                $0.limits.loginAttemptsPerIP = 1
            })
            try await server.run(.live) { client in
                let browser = Browser(client)
                let query = DialogFlowTests.query(server)
                func attempt(from ip: String) async throws -> HTTPResponse.Status {
                    let page = try await browser.get("/dialog/oauth?" + query)
                    var headers = browser.cookieHeaders()
                    headers[.contentType] = "application/x-www-form-urlencoded"
                    headers[HTTPField.Name("X-Forwarded-For")!] = ip
                    let form = FormEncoding.encode([
                        ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""),
                        ("dialog", Browser.hiddenValue("dialog", in: page.text) ?? ""),
                        ("email", "alice@example.com"), ("password", "wrong-password"),
                    ])
                    return try await client.execute(
                        uri: "/dialog/oauth/login", method: .post, headers: headers, body: ByteBuffer(string: form)
                    ).status
                }
                do { let status = try await attempt(from: "203.0.113.1"); #expect(status == .seeOther) }
                do { let status = try await attempt(from: "203.0.113.1"); #expect(status == .tooManyRequests) }
                do {
                    let status = try await attempt(from: "203.0.113.2");
                    #expect(status == (secondClientLimited ? .tooManyRequests : .seeOther))
                }
            }
        }
    }
}
