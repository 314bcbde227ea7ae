import Crypto
import CryptoExtras
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore

/// The Graph hot path in-process: whole `/me` and `debug_token` requests on a known token (the caller cache
/// hit every request of `scripts/bench`'s hot rows makes), then the pieces of `/me` one at a time, so the gap
/// to `/bench/hello` can be split into its causes without HTTP parsing or a socket.
extension PipelineProbe {
    func graphRows(
        services: GatehouseServices, responder: some HTTPResponder<GatehouseRequestContext>,
        source: ApplicationRequestContextSource, row: (String, () async throws -> Void) async throws -> Void
    ) async throws {
        let (app, token) = try await Self.knownCaller(services)
        func request(_ path: String) -> Request {
            Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: path),
                body: .init(buffer: ByteBuffer()))
        }
        let me = request("/me?fields=id,name,email&access_token=\(token)")
        let debug = request("/debug_token?input_token=\(token)&access_token=\(app.id)%7C\(app.secret)")
        guard (try await responder.respond(to: me, context: GatehouseRequestContext(source: source))).status == .ok,
            (try await responder.respond(to: debug, context: GatehouseRequestContext(source: source))).status == .ok
        else { throw ProbeFailure(message: "the probe's /me or debug_token did not answer 200") }
        // The probe runs in development mode, where the journal is on by default; `scripts/bench`'s server runs
        // with it off (production's default), so the whole-responder rows are measured both ways.
        let journaling = services.journal.isEnabled
        services.journal.setEnabled(false)
        try await row("GET /me?fields=id,name,email, whole responder (cached caller), journal paused") {
            _ = try await responder.respond(to: me, context: GatehouseRequestContext(source: source))
        }
        try await row("GET /debug_token, whole responder (cached callers), journal paused") {
            _ = try await responder.respond(to: debug, context: GatehouseRequestContext(source: source))
        }
        services.journal.setEnabled(true)
        try await row("GET /me?fields=id,name,email, whole responder (cached caller), journal on") {
            _ = try await responder.respond(to: me, context: GatehouseRequestContext(source: source))
        }
        services.journal.setEnabled(journaling)
        let dispatcher = GraphDispatcher(services: services)
        let adapter = GraphHTTPAdapter(services: services, dispatcher: dispatcher)
        try await row("/me piece: GraphHTTPAdapter.makeCall (query parsing)") {
            _ = try await adapter.makeCall(me, path: ["me"], version: "v19.0")
        }
        let call = try await adapter.makeCall(me, path: ["me"], version: "v19.0")
        try await row("/me piece: TokenService.resolve (cache hit)") { _ = try await services.tokens.resolve(token) }
        let caller = try await services.tokens.resolve(token).get()
        try await row("/me piece: ErrorInjector.check (nothing injected)") {
            _ = try await ErrorInjector(services: services).check(caller)
        }
        try await row("/me piece: GraphDispatcher.dispatch (all of the above but parsing, plus rendering the fields)") {
            _ = await dispatcher.dispatch(call)
        }
        let reply = await dispatcher.dispatch(call)
        try await row("/me piece: GraphHTTPAdapter.response (headers and JSON serialisation)") {
            _ = GraphHTTPAdapter.response(reply, version: "v19.0")
        }
        try await row("/me piece: GraphHTTPAdapter.handle (the adapter without router and middleware)") {
            _ = await adapter.handle(me, GatehouseRequestContext(source: source))
        }
        // The id_token row's floor: jwt-kit's RS256 over the active 2048-bit key, then the RSA primitive alone.
        let now = services.clock.now()
        let claims = IDTokenClaims(
            iss: services.configuration.baseURL, aud: "probe", sub: "1", iat: Int(now.timeIntervalSince1970),
            exp: Int(now.timeIntervalSince1970) + 3600, jti: "probe", nonce: nil)
        try await row("id_token: KeyRing.sign (RS256, jwt-kit, active key cached)") {
            _ = try await services.keyRing.sign(claims)
        }
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: try await services.keyRing.activeKey().privateKeyPEM)
        let digest = SHA256.hash(data: Data("probe".utf8))
        try await row("id_token: RSA-2048 PKCS#1 v1.5 signature alone (swift-crypto)") {
            _ = try key.signature(for: digest, padding: .insecurePKCS1v1_5)
        }
    }

    /// An app and a person with a long-lived token for it (email granted), made through the stores.
    static func knownCaller(_ services: GatehouseServices) async throws -> (AppRecord, String) {
        let now = services.clock.now()
        let app = AppRecord(
            id: "1999000000000001", secret: "probe" + services.random.alphanumeric(bits: 128),
            clientToken: "probe-client",
            name: "Pipeline probe", redirectURIs: ["https://probe.example/cb"], createdAt: now)
        try await services.storage.apps.create(app)
        let user = UserRecord(
            id: "1999000000000002", email: "probe@example.com", passwordHash: try await services.passwords.dummyHash(),
            firstName: "Probe", lastName: "Person", createdAt: now)
        try await services.storage.users.create(user)
        try await services.storage.grants.save(
            GrantRecord(
                appID: app.id, userID: user.id, granted: [Permission.publicProfile, "email"], declined: [],
                createdAt: now, updatedAt: now, lastLoginAt: now))
        let (token, _) = try await services.tokens.mintUserToken(
            app: app, userID: user.id, lifetime: Lifetimes.longLivedToken, origin: "probe")
        return (app, token)
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
