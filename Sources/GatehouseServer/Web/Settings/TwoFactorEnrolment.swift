import GatehouseCore
import Foundation
import Logging

/// A second factor given to a person from outside their settings: the console, `gatehouse users two-factor`, the
/// admin API (`PUT /people/{id}/two_factor`) and scenario files (`two_factor:`), so tests and demos can put a test
/// user behind the login code checkpoint without a phone.
extension AccountService {
    /// What enabling made: the secret (base32) and the recovery codes, shown to the caller once.
    package struct TwoFactorEnabled: Sendable {
        package var secret: String
        package var provisioningURI: String
        package var recoveryCodes: [String]
    }

    /// Turns two-factor login on for `user`, confirmed at once, with `secret` (base32) or a fresh one, and ten new
    /// recovery codes. Replaces any earlier second factor.
    /// - Throws: ``AccountError`` for a secret that is not base32 of at least 10 bytes, or storage without second factors.
    @discardableResult
    package func enableTwoFactor(for user: UserRecord, secret: String? = nil) async throws -> TwoFactorEnabled {
        guard let store = services.storage.twoFactor else { throw AccountError("this storage keeps no second factors") }
        let bytes: [UInt8]
        if let secret {
            guard let decoded = Base32.decode(secret), decoded.count >= 10, decoded.count <= 64 else {
                throw AccountError(
                    "the two-factor secret must be base32 (RFC 4648) of 10 to 64 bytes, e.g. 32 letters A-Z and digits 2-7"
                )
            }
            bytes = decoded
        } else {
            bytes = services.random.bytes(20)
        }
        let now = services.clock.now()
        let text = Base32.encode(bytes)
        try await store.save(TwoFactorRecord(userID: user.id, secret: text, createdAt: now, confirmedAt: now))
        let random = services.random
        let codes = RecoveryCodes.make { random.bytes(1)[0] }
        try await store.replaceRecoveryCodes(userID: user.id, hashes: codes.compactMap(RecoveryCodes.hash))
        services.logger.info("two-factor login on", metadata: ["user": "\(user.id)"])
        await services.events.record(.twoFactorEnrolled, personID: user.id, ["method": "totp"])
        return TwoFactorEnabled(
            secret: text,
            provisioningURI: TOTP(secret: bytes).provisioningURI(issuer: "Gatehouse", account: user.email),
            recoveryCodes: codes)
    }

    /// Turns two-factor login off for `user` (the secret and recovery codes are deleted).
    package func disableTwoFactor(for user: UserRecord) async throws {
        try await services.storage.twoFactor?.delete(userID: user.id)
        services.logger.info("two-factor login off", metadata: ["user": "\(user.id)"])
        await services.events.record(.twoFactorDisabled, personID: user.id)
    }

    /// Whether logins of `user` ask for a code.
    package func hasTwoFactor(_ user: UserRecord) async throws -> Bool {
        try await services.storage.twoFactor?.find(userID: user.id)?.isEnabled ?? false
    }

    /// The code the checkpoint accepts now, in development mode only (nil otherwise, or without a second factor).
    package func developmentLoginCode(for user: UserRecord) async throws -> String? {
        guard services.configuration.isDevelopment,
            let record = try await services.storage.twoFactor?.find(userID: user.id),
            record.isEnabled
        else { return nil }
        return SecondFactorGate.usableCode(record, now: services.clock.now())
    }
}
