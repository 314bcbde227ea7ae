import Crypto
import Foundation
import GatehouseProtocol

/// Addresses and seals remote token-cache slots.
///
/// From one server master key (32 random bytes in `server_keys`, shared by all nodes) HKDF-SHA256 derives,
/// per app: an address key, with which a slot's address is HMAC-SHA256(session secret); and, per app and
/// session secret, the AES-256-GCM key the slot is sealed with. The database therefore holds neither the
/// session secret nor anything that decrypts a slot without it, and a slot cannot be moved to another app
/// or slot (both are authenticated as associated data).
package struct TokenCacheCrypto: Sendable {
    package static let masterKeyName = "token_cache_master_v1"

    package let master: SymmetricKey

    package init(master: [UInt8]) { self.master = SymmetricKey(data: master) }

    /// The master key from storage, created on first use.
    package static func load(_ keys: any ServerKeyStore, random: any RandomSource) async throws -> TokenCacheCrypto {
        TokenCacheCrypto(master: try await keys.key(named: masterKeyName) { random.bytes(32) })
    }

    /// The slot address for a session secret under one app: hex HMAC, never reversible to the secret.
    package func slot(appID: String, sessionKey: String) -> String {
        let addressKey = derive(appID: appID, info: "gatehouse token cache address v1")
        let mac = HMAC<SHA256>.authenticationCode(for: Data(sessionKey.utf8), using: addressKey)
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Seals `plaintext` for (app, session); base64 of nonce ‖ ciphertext ‖ tag.
    package func seal(_ plaintext: String, appID: String, sessionKey: String, slot: String) throws -> String {
        let box = try AES.GCM.seal(
            Data(plaintext.utf8), using: dataKey(appID: appID, sessionKey: sessionKey),
            authenticating: Self.associatedData(appID: appID, slot: slot))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined.base64EncodedString()
    }

    /// Opens a sealed slot; nil when it was sealed for another app, slot or session, or was tampered with.
    package func open(_ sealed: String, appID: String, sessionKey: String, slot: String) -> String? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(
                box, using: dataKey(appID: appID, sessionKey: sessionKey),
                authenticating: Self.associatedData(appID: appID, slot: slot))
        else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    private func dataKey(appID: String, sessionKey: String) -> SymmetricKey {
        derive(appID: appID, info: "gatehouse token cache data v1|" + sessionKey)
    }

    private func derive(appID: String, info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, salt: Data(("app:" + appID).utf8), info: Data(info.utf8), outputByteCount: 32)
    }

    private static func associatedData(appID: String, slot: String) -> Data { Data("\(appID)|\(slot)".utf8) }
}
