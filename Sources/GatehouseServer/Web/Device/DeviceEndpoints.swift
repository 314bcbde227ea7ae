import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// `POST /device/login` and `POST /device/login_status`, the device's half of Facebook Login for Devices.
/// Both take the app's `APPID|CLIENT_TOKEN` (or an app token) as `access_token`.
struct DeviceEndpoints: Sendable {
    let services: GatehouseServices

    /// Starts a device login: `{code, user_code, verification_uri, expires_in, interval}`.
    func login(_ call: GraphCall, caller: Caller) async throws -> GraphReply {
        guard call.method == .post else {
            throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: "device"))
        }
        let app = try Self.appCaller(caller)
        let scope = Permission.parseScope(call.params["scope"] ?? "")
        // A permission Facebook removed is as unknown as a misspelled one at versions after its removal.
        let removed = Permission.removed(scope, at: call.version)
        let unknown = scope.filter { !Permission.isKnown($0) || removed.contains($0) }
        guard unknown.isEmpty else {
            throw GraphFailure(.invalidParameter("Invalid Scopes: \(unknown.joined(separator: ", "))"))
        }
        var scopes = [Permission.publicProfile]
        for p in scope where !scopes.contains(p) && p != "openid" { scopes.append(p) }

        let now = services.clock.now()
        let interval = services.configuration.devicePollInterval
        var attempt = 0
        while true {
            attempt += 1
            let code = services.random.alphanumeric(bits: 256)
            let userCode = DeviceLogin.makeUserCode(randomBytes: services.random.bytes)
            let record = DeviceCodeRecord(
                id: services.random.uuidString(), codeHash: SecretHash.sha256Hex(code), userCode: userCode,
                appID: app.id, scopes: scopes,
                createdAt: now, expiresAt: now.addingTimeInterval(DeviceLogin.lifetime), interval: interval)
            // A live code with the same user code would make the person's entry ambiguous: draw again.
            if let clash = try await services.storage.deviceCodes.find(userCode: userCode), clash.expiresAt > now,
                attempt < 5
            {
                continue
            }
            try await services.storage.deviceCodes.insert(record)
            services.logger.info("device login started", metadata: ["app": "\(app.id)"])
            return .json([
                "code": .string(code), "user_code": .string(userCode),
                "verification_uri": .string(services.configuration.baseURL + PagePath.Device.home),
                "expires_in": .int(Int64(DeviceLogin.lifetime)), "interval": .int(Int64(interval)),
            ])
        }
    }

    /// One poll: the token once the person consented, else Facebook's pending / too fast / expired errors.
    func status(_ call: GraphCall, caller: Caller) async throws -> GraphReply {
        guard call.method == .post || call.method == .get else {
            throw GraphFailure(.unsupportedRequest(method: call.method.rawValue, objectID: "device"))
        }
        let app = try Self.appCaller(caller)
        guard let code = call.param("code"), code.utf8.count <= 256 else {
            throw GraphFailure(.invalidParameter("The parameter code is required"))
        }
        let storage = services.storage
        guard let record = try await storage.deviceCodes.find(codeHash: SecretHash.sha256Hex(code)),
            record.appID == app.id
        else {
            throw GraphFailure(.invalidParameter("Invalid device login code"))
        }
        let now = services.clock.now()
        let (outcome, next) = DeviceLogin.poll(record, now: now)
        if let next {
            guard
                try await storage.deviceCodes.update(
                    next, expecting: record.status, expectedPolledAt: record.lastPolledAt)
            else {
                // Another poll for the same code landed first: this one was too fast.
                throw GraphFailure(.deviceTooFast(interval: record.interval))
            }
        }
        switch outcome {
        case .pending: throw GraphFailure(.devicePending)
        case .tooFast: throw GraphFailure(.deviceTooFast(interval: record.interval))
        case .expired: throw GraphFailure(.deviceCodeExpired)
        case .declined: throw GraphFailure(.deviceDeclined)
        case .issueToken(let userID, _):
            let lifetime = Lifetimes.longLivedToken
            let (token, _) = try await services.tokens.mintUserToken(
                app: app, userID: userID, lifetime: lifetime, origin: "device")
            let dataAccess = (try await storage.grants.find(appID: app.id, userID: userID))?.lastLoginAt ?? now
            services.logger.info("device login completed", metadata: ["app": "\(app.id)"])
            return .json([
                "access_token": .string(token), "expires_in": .int(Int64(lifetime)),
                "data_access_expiration_time": .int(
                    Int64(GrantRecord.dataAccessExpiry(lastLoginAt: dataAccess).timeIntervalSince1970)),
            ])
        }
    }

    /// Device login is for apps, identified by `APPID|CLIENT_TOKEN` or an app token; a person's token is refused.
    static func appCaller(_ caller: Caller) throws -> AppRecord {
        switch caller {
        case .client(let app), .app(let app): return app
        case .user:
            throw GraphFailure(
                .invalidParameter("Device login requires an app access token or a client token (APPID|CLIENT_TOKEN)"))
        }
    }
}
