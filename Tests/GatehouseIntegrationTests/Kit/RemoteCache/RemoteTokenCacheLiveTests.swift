import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// `RemoteTokenCache` against a real `gatehouse serve`: a person logs in on one device and a session opens
/// silently on another, through the server's token cache keyed by the app backend's session.
@Suite(.tags(.process)) struct RemoteTokenCacheLiveTests {
    /// What the app's own backend hands both devices after the person logged in to the app: a session secret
    /// and its proof (computed with the app secret, which never reaches a device).
    struct BackendSession {
        let key = "appsession-" + UUID().uuidString + "-" + UUID().uuidString
        let proof: String
        init(appSecret: String) { proof = RemoteTokenCache.sessionProof(sessionKey: key, appSecret: appSecret) }
    }

    @Test func secondDeviceOpensSilentlyWithTheFirstDevicesToken() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let backend = BackendSession(appSecret: server.appSecret)

        // Device 1: logs in through the dialog; AccessToken.current is written to the remote cache.
        let cache1 = try RemoteTokenCache(
            sessionKey: backend.key, sessionProof: backend.proof, settings: server.settings())
        try await cache1.reload()
        #expect(cache1.accessToken == nil)
        let device1 = GatehouseKitEnvironment(settings: server.settings(), tokenCache: cache1)
        let manager = LoginManager(
            presenter: DialogPlayerPresenter(server: server, user: server.users[0]), environment: device1)
        let result = try await manager.logIn(permissions: ["email"])
        let token = try #require(result.token)
        try await cache1.flush()

        // Device 2: a fresh environment with its own cache object on the same backend session.
        let cache2 = try RemoteTokenCache(
            sessionKey: backend.key, sessionProof: backend.proof, settings: server.settings())
        try await cache2.reload()
        let device2 = GatehouseKitEnvironment(settings: server.settings(), tokenCache: cache2)
        let session = Session(permissions: ["public_profile", "email"], environment: device2)
        #expect(session.state == .createdTokenLoaded)
        #expect(try await session.open(allowLoginUI: false) == .open)
        #expect(session.accessToken == token)
        #expect(device2.currentAccessToken == token)
        #expect(try await LiveLogin.meID(token, environment: device2) == token.userID)

        // Logging out on device 2 clears the server's copy; device 1's next launch finds nothing.
        device2.setCurrentAccessToken(nil)
        try await cache2.flush()
        let cache3 = try RemoteTokenCache(
            sessionKey: backend.key, sessionProof: backend.proof, settings: server.settings())
        try await cache3.reload()
        #expect(cache3.accessToken == nil)
        #expect(
            Session(
                permissions: ["public_profile"],
                environment: GatehouseKitEnvironment(settings: server.settings(), tokenCache: cache3)
            ).state == .created)
    }

    @Test func aFirstReadFetchesSynchronouslyAsTheSeedDoes() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let backend = BackendSession(appSecret: server.appSecret)
        let writer = try RemoteTokenCache(
            sessionKey: backend.key, sessionProof: backend.proof, settings: server.settings())
        let token = AccessToken(
            tokenString: "EAAGnotarealtoken", permissions: ["public_profile"], declinedPermissions: [],
            expiredPermissions: [],
            appID: server.appID, userID: "123", expirationDate: Date(timeIntervalSince1970: 4_000_000_000),
            refreshDate: Date(timeIntervalSince1970: 1_800_000_000), dataAccessExpirationDate: nil)
        writer.accessToken = token
        try await writer.flush()
        let reader = try RemoteTokenCache(
            sessionKey: backend.key, sessionProof: backend.proof, settings: server.settings())
        // The blocking read runs off the cooperative pool.
        let read: AccessToken? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: reader.accessToken) }
        }
        #expect(read == token)
    }

    @Test func theServerRefusesAWrongProofAndTheCacheSaysWhy() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let backend = BackendSession(appSecret: server.appSecret)
        let forged = try RemoteTokenCache(
            sessionKey: backend.key,
            sessionProof: RemoteTokenCache.sessionProof(sessionKey: backend.key, appSecret: "guess"),
            settings: server.settings())
        await #expect(
            throws: RemoteTokenCacheError(code: 30003, message: "Invalid session_proof for this session_key.")
        ) { try await forged.reload() }
        forged.accessToken = AccessToken(
            tokenString: "x", permissions: [], declinedPermissions: [], expiredPermissions: [], appID: server.appID,
            userID: "1", expirationDate: nil, refreshDate: nil, dataAccessExpirationDate: nil)
        await #expect(throws: RemoteTokenCacheError.self) { try await forged.flush() }
        #expect(throws: CoreError.self) {
            try RemoteTokenCache(sessionKey: "short", sessionProof: "", settings: server.settings())
        }
    }
}
