import Crypto
import Foundation

/// Encrypts secrets at rest (id_token signing private keys, the token cache's master key) with a key the
/// database never sees: `--master-key-file` / `GATEHOUSE_MASTER_KEY_FILE`.
///
/// AES-256-GCM. A sealed value starts with a version marker, so values written before a master key was configured
/// still read as they are (and a copy of the database alone no longer yields the keys once they are sealed).
package struct SecretSealer: Sendable {
    private let key: SymmetricKey
    /// Prefix of a sealed text value (signing key PEMs).
    package static let textMarker = "gatehouse-sealed:v1:"
    /// Prefix of a sealed binary value (server keys).
    package static let binaryMarker: [UInt8] = Array("GHS1".utf8)

    /// - Parameter keyBytes: exactly 32 bytes.
    package init?(keyBytes: [UInt8]) {
        guard keyBytes.count == 32 else { return nil }
        key = SymmetricKey(data: keyBytes)
    }

    /// Reads the master key file: 32 raw bytes, or 32 bytes as base64 or 64 hex digits (whitespace ignored).
    /// - Throws: ``ConfigurationError`` naming the file when it is unreadable or not 32 bytes.
    package static func load(path: String) throws -> SecretSealer {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("master_key_file \(path) cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
        var candidates: [[UInt8]] = [Array(data)]
        if let decoded = Data(base64Encoded: text) { candidates.append(Array(decoded)) }
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                bytes.append(UInt8(text[index..<next], radix: 16)!)
                index = next
            }
            candidates.append(bytes)
        }
        guard let sealer = candidates.lazy.compactMap(SecretSealer.init(keyBytes:)).first else {
            throw ConfigurationError(
                "master_key_file \(path) must hold 32 bytes (raw, base64 or 64 hex digits); make one with `openssl rand -base64 32`"
            )
        }
        return sealer
    }

    package func seal(text: String) throws -> String {
        Self.textMarker + (try AES.GCM.seal(Data(text.utf8), using: key).combined ?? Data()).base64EncodedString()
    }

    /// The plain text of a sealed value; an unsealed (older) value is returned as it is.
    package func open(text: String) throws -> String {
        guard text.hasPrefix(Self.textMarker),
            let data = Data(base64Encoded: String(text.dropFirst(Self.textMarker.count)))
        else { return text }
        return String(decoding: try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key), as: UTF8.self)
    }

    package func seal(bytes: [UInt8]) throws -> [UInt8] {
        Self.binaryMarker + Array(try AES.GCM.seal(bytes, using: key).combined ?? Data())
    }

    package func open(bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.starts(with: Self.binaryMarker) else { return bytes }
        return Array(
            try AES.GCM.open(AES.GCM.SealedBox(combined: bytes.dropFirst(Self.binaryMarker.count)), using: key))
    }
}

/// Signing keys with their private halves sealed in storage.
package struct SealedSigningKeyStore: SigningKeyStore {
    package let inner: any SigningKeyStore
    package let sealer: SecretSealer

    package func insert(_ key: SigningKeyRecord) async throws {
        var sealed = key
        sealed.privateKeyPEM = try sealer.seal(text: key.privateKeyPEM)
        try await inner.insert(sealed)
    }

    package func all() async throws -> [SigningKeyRecord] {
        try await inner.all().map { key in
            var open = key
            open.privateKeyPEM = try sealer.open(text: key.privateKeyPEM)
            return open
        }
    }

    package func retire(kid: String, at: Date, publishUntil: Date) async throws {
        try await inner.retire(kid: kid, at: at, publishUntil: publishUntil)
    }
}

/// Server keys (the token cache's master key) sealed in storage.
package struct SealedServerKeyStore: ServerKeyStore {
    package let inner: any ServerKeyStore
    package let sealer: SecretSealer

    package func key(named name: String, orInsert make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let sealedFresh = try sealer.seal(bytes: make())
        return try sealer.open(bytes: try await inner.key(named: name) { sealedFresh })
    }
}

extension Storage {
    /// The same storage with signing keys and server keys sealed by `sealer` (unchanged when nil).
    package func sealingSecrets(with sealer: SecretSealer?) -> Storage {
        guard let sealer else { return self }
        var sealed = self
        sealed.signingKeys = SealedSigningKeyStore(inner: signingKeys, sealer: sealer)
        sealed.serverKeys = SealedServerKeyStore(inner: serverKeys, sealer: sealer)
        sealed.twoFactor = twoFactor.map { SealedTwoFactorStore(inner: $0, sealer: sealer) }
        return sealed
    }
}
