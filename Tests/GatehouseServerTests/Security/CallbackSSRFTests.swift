import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOSSL
import Testing

/// Issue 12, finding 8: deauthorize and data-deletion callbacks go where the app's editor says, so they must not
/// become a way into the server's own network. Redirects are never followed; production mode sends https only,
/// and never to loopback, link-local, private or unique-local addresses (checked on the address actually used).
@Suite struct CallbackSSRFTests {
    /// Counts requests to a plain-HTTP loopback server: the "internal" service an attacker wants to reach.
    final class Hits: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    static let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }

    /// Runs `body` with a server on 127.0.0.1 that counts hits and answers 200 (`redirectTo` nil) or 302 to it.
    static func withServer(
        tls cert: SelfSignedCertificate? = nil, redirectTo: String? = nil,
        _ body: @Sendable (Int, Hits) async throws -> Void
    ) async throws {
        let hits = Hits()
        let router = Router()
        router.post("/**") { _, _ -> Response in
            hits.add()
            if let redirectTo { return Response(status: .found, headers: [.location: redirectTo]) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        var configuration = GatehouseConfiguration()
        configuration.tlsCertificatePath = cert?.certificatePath
        configuration.tlsKeyPath = cert?.keyPath
        let serverBuilder = try GatehouseApp.serverBuilder(configuration)
        try await PatientLiveClient.run({ onRunning in
            Application(
                router: router, server: serverBuilder, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: onRunning, logger: quiet)
        }) { client in try await body(try #require(client.port), hits) }
    }

    /// Queues a deauthorize callback to `url` and attempts it once through `transport`; returns the stored outcome.
    static func deliver(_ server: TestServer, to url: String, transport: any CallbackTransport) async throws
        -> AppCallbackRecord?
    {
        var app = server.app
        app.deauthorizeCallbackURL = url
        let outbox = CallbackOutbox(
            storage: server.services.storage, clock: server.services.clock, transport: transport, logger: quiet)
        _ = try await outbox.enqueue(
            .deauthorize, app: app, userID: server.alice.id, scopedUserID: "1", at: server.clock.now())
        return await outbox.deliverDue().first
    }

    @Test func productionNeverFollowsARedirectToAnotherLoopbackPort() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await TestServer.make(mode: .production)
        try await server.run { _ in
            try await Self.withServer { internalPort, internalHits in
                try await Self.withServer(tls: cert, redirectTo: "http://127.0.0.1:\(internalPort)/internal") {
                    tlsPort, redirectHits in
                    // Production's transport, trusting the test certificate, with the address rule relaxed so the
                    // first (loopback) hop is reachable on one machine: what is left to stop the hop is "no redirects".
                    var tls = TLSConfiguration.makeClientConfiguration()
                    tls.trustRoots = .certificates([
                        try NIOSSLCertificate(bytes: Array(cert.certificatePEM.utf8), format: .pem)
                    ])
                    let transport = GuardedCallbackTransport(
                        rules: CallbackDestinationRules(requireHTTPS: true, refuseInternalAddresses: false),
                        tlsConfiguration: tls)
                    let record = try await Self.deliver(
                        server, to: "https://localhost:\(tlsPort)/deauthorize", transport: transport)
                    #expect(redirectHits.value == 1)
                    #expect(internalHits.value == 0)
                    #expect(record?.deliveredAt == nil)
                    #expect(record?.lastError?.contains("302") == true)
                }
            }
        }
    }

    @Test func productionRefusesInternalDestinationsBeforeConnecting() async throws {
        let cert = try SelfSignedCertificate.make()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let server = try await TestServer.make(mode: .production)
        try await server.run { _ in
            try await Self.withServer(tls: cert) { port, hits in
                for url in [
                    "https://localhost:\(port)/cb", "https://127.0.0.1:\(port)/cb", "https://[::1]:\(port)/cb",
                    "https://10.1.2.3/cb", "https://169.254.169.254/latest/meta-data", "https://[fd00::1]/cb",
                    "https://[::ffff:127.0.0.1]:\(port)/cb", "https://0.0.0.0:\(port)/cb",
                ] {
                    await #expect(throws: CallbackRefused.self, "\(url)") {
                        _ = try await server.services.callbackTransport.post(url: url, form: "x=1")
                    }
                }
                #expect(hits.value == 0)
            }
        }
    }

    @Test func productionRefusesPlainHTTPCallbacks() async throws {
        let server = try await TestServer.make(mode: .production)
        try await server.run { _ in
            try await Self.withServer { port, hits in
                let record = try await Self.deliver(
                    server, to: "http://127.0.0.1:\(port)/deauthorize", transport: server.services.callbackTransport)
                #expect(hits.value == 0)
                #expect(record?.deliveredAt == nil)
            }
        }
    }

    @Test func developmentCallsLoopbackButNeverFollowsItsRedirects() async throws {
        let server = try await TestServer.make(mode: .development)
        try await server.run { _ in
            try await Self.withServer { internalPort, internalHits in
                try await Self.withServer(redirectTo: "http://127.0.0.1:\(internalPort)/internal") {
                    port, redirectHits in
                    let record = try await Self.deliver(
                        server, to: "http://127.0.0.1:\(port)/deauthorize", transport: server.services.callbackTransport
                    )
                    #expect(redirectHits.value == 1)
                    #expect(internalHits.value == 0)
                    #expect(record?.deliveredAt == nil)
                }
            }
        }
    }
}
