import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Testing
import HTTPTypes

/// Issue 12, finding 13: a registered `http://127.0.0.1/cb` admits any port on 127.0.0.1, but not `localhost`
/// or `[::1]` (RFC 8252 §8.3): those may be another program's listener, so codes would leak to it.
@Suite struct LoopbackRedirectURITests {
    @Test func aRegisted127LoopbackURIDoesNotAdmitLocalhostOrIPv6() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for redirect in ["http://localhost:5555/cb", "http://[::1]:5555/cb", "http://localhost/cb"] {
                let r = try await client.execute(
                    uri: "/dialog/oauth?" + DialogFlowTests.query(server, redirect: redirect), method: .get)
                #expect(r.status == .badRequest, "\(redirect)")
                #expect(r.headers[.location] == nil)
                #expect(r.text.contains("is not registered for app \(server.app.id)"))
            }
            // Any port on the registered loopback address is still fine.
            let ok = try await client.execute(
                uri: "/dialog/oauth?" + DialogFlowTests.query(server, redirect: "http://127.0.0.1:5555/cb"),
                method: .get)
            #expect(ok.status == .ok)
        }
    }
}
