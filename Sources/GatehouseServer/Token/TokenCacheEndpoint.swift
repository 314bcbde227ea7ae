import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// The remote token cache (the seeds' "Managing your own token cache", step 2, made safe):
///
/// - `POST   /{app-id}/token_cache` `session_key`, `session_proof`, `token_info` → `{"status":true}`
/// - `GET    /{app-id}/token_cache?session_key&session_proof` → `{"status":true,"token_info":"…"}`
/// - `DELETE /{app-id}/token_cache` `session_key`, `session_proof` → `{"status":true}`
///
/// Every call carries the app's `access_token` (`APPID|CLIENT_TOKEN` from a device, or an app token from
/// the app's backend). Failures answer `{"status":false,"errorCode":N,"errorMessage":"…"}` with an HTTP
/// status to match. See `TokenCacheWire` for the proof and `TokenCacheCrypto` for storage.
struct TokenCacheEndpoint: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall, appID: String) async -> GraphReply {
        do {
            return try await route(call, appID: appID)
        } catch let failure as Failure {
            return Self.failure(failure.code, failure.message, status: failure.status)
        } catch {
            services.logger.error("token cache failed", metadata: ["error": "\(type(of: error))"])
            return Self.failure(.writeFailed, "The token cache is unavailable. Try again later.", status: 503)
        }
    }

    private func route(_ call: GraphCall, appID: String) async throws -> GraphReply {
        guard [.get, .post, .delete].contains(call.method) else {
            throw Failure(.unsupportedMethod, "Unsupported method: \(call.method.rawValue)", status: 405)
        }
        let app = try await authenticate(call, appID: appID)
        guard let sessionKey = call.param("session_key"),
            TokenCacheWire.sessionKeyLength.contains(sessionKey.utf8.count)
        else {
            throw Failure(.invalidInput, "Invalid data input.", status: 400)
        }
        guard let proof = call.param("session_proof"), proof.utf8.count <= 128,
            TokenCacheWire.proofMatches(proof, sessionKey: sessionKey, appSecret: app.secret)
        else { throw Failure(.invalidSessionProof, "Invalid session_proof for this session_key.", status: 403) }

        let crypto = try await TokenCacheCrypto.load(services.storage.serverKeys, random: services.random)
        let slot = crypto.slot(appID: app.id, sessionKey: sessionKey)
        let store = services.storage.tokenCache
        switch call.method {
        case .post:
            guard let info = call.param("token_info"), info.utf8.count <= TokenCacheWire.maxTokenInfoBytes,
                case .object(_)? = try? JSONValue.parse(Data(info.utf8))
            else { throw Failure(.invalidInput, "Invalid data input.", status: 400) }
            let sealed = try crypto.seal(info, appID: app.id, sessionKey: sessionKey, slot: slot)
            try await store.put(
                TokenCacheSlotRecord(appID: app.id, slot: slot, sealed: sealed, updatedAt: services.clock.now()))
            return .json(["status": true])
        case .get:
            guard let record = try await store.find(appID: app.id, slot: slot),
                let info = crypto.open(record.sealed, appID: app.id, sessionKey: sessionKey, slot: slot)
            else { throw Failure(.noData, "No token data is cached for this session.", status: 404) }
            return .json(["status": true, "token_info": .string(info)])
        case .delete:
            _ = try await store.delete(appID: app.id, slot: slot)
            return .json(["status": true])
        }
    }

    /// The app's client token or an app token, for the app named in the path.
    private func authenticate(_ call: GraphCall, appID: String) async throws -> AppRecord {
        let invalid = Failure(
            .invalidCredentials,
            "Invalid app credentials: send access_token=APPID|CLIENT_TOKEN or an app access token.", status: 401)
        guard let token = call.accessToken, case .success(let caller) = try await services.tokens.resolve(token) else {
            throw invalid
        }
        switch caller {
        case .client(let app) where app.id == appID, .app(let app) where app.id == appID: return app
        default: throw invalid
        }
    }

    struct Failure: Error {
        var code: TokenCacheWire.ErrorCode
        var message: String
        var status: Int
        init(_ code: TokenCacheWire.ErrorCode, _ message: String, status: Int) {
            self.code = code
            self.message = message
            self.status = status
        }
    }

    static func failure(_ code: TokenCacheWire.ErrorCode, _ message: String, status: Int) -> GraphReply {
        JournalNote.current?.explain("\(code.explanation) (token cache error \(code.rawValue): \(message))")
        return .json(
            ["status": false, "errorCode": .int(Int64(code.rawValue)), "errorMessage": .string(message)], status: status
        )
    }
}
