import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import JWTKit
import SwiftASN1
import X509

/// The id_token signing keys: made on first use, kept in the database, rotated with a grace period.
///
/// Every node reads the same `signing_keys` table, so a cluster signs with one key. The storage keeps the
/// node's copy of that table in memory (``CachingSigningKeyStore``, refreshed on every rotation here and, through
/// the invalidation channel, on other nodes), so signing reads no database; the parsed keys are cached here and
/// rebuilt only when the active key changes. Which key is active or still published is decided on every call.
package actor KeyRing {
    /// How long a retired key stays published by default.
    package static let defaultGrace: TimeInterval = 7 * 86400

    package let store: any SigningKeyStore
    package let clock: any GatehouseClock
    private var cache: (kids: [String], collection: JWTKeyCollection)?

    package init(store: any SigningKeyStore, clock: any GatehouseClock) {
        self.store = store
        self.clock = clock
    }

    /// The key in use, creating the first one when there is none.
    package func activeKey() async throws -> SigningKeyRecord {
        if let key = try await store.all().last(where: { $0.retiredAt == nil }) { return key }
        let key = try Self.makeKey(now: clock.now())
        do {
            try await store.insert(key)
        } catch StorageError.conflict {
            // Another node made one at the same moment; use whichever is now active.
        }
        guard let active = try await store.all().last(where: { $0.retiredAt == nil }) else {
            throw StorageError.notFound
        }
        return active
    }

    /// Keys whose public half is served: the active key and retired keys still within their grace period.
    package func publishedKeys() async throws -> [SigningKeyRecord] {
        _ = try await activeKey()
        let now = clock.now()
        return try await store.all().filter { $0.retiredAt == nil || ($0.publishUntil ?? now) > now }
    }

    /// Every key, for `gatehouse keys list`.
    package func allKeys() async throws -> [SigningKeyRecord] { try await store.all() }

    /// Starts signing with a new key; the old one stays published for `grace`.
    @discardableResult
    package func rotate(grace: TimeInterval = KeyRing.defaultGrace) async throws -> SigningKeyRecord {
        let now = clock.now()
        let previous = try await store.all().filter { $0.retiredAt == nil }
        let key = try Self.makeKey(now: now)
        try await store.insert(key)
        for old in previous {
            try await store.retire(kid: old.kid, at: now, publishUntil: now.addingTimeInterval(grace))
        }
        cache = nil
        return key
    }

    /// Signs the claims with the active key (RS256, header `alg`, `kid`, `typ`), on ``SigningThreads``.
    package func sign(_ claims: some JWTPayload & Sendable) async throws -> String {
        let active = try await activeKey()
        let collection = try await collection(for: [active])
        let kid = JWKIdentifier(string: active.kid)
        // jwt-kit's collection is an actor of its own, so with the preference it signs on those threads.
        return try await onSigningThreads { try await collection.sign(claims, kid: kid, header: ["typ": "JWT"]) }
    }

    private func collection(for keys: [SigningKeyRecord]) async throws -> JWTKeyCollection {
        let kids = keys.map(\.kid)
        if let cache, cache.kids == kids { return cache.collection }
        let collection = JWTKeyCollection()
        for key in keys {
            await collection.add(
                rsa: try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: key.kid))
        }
        cache = (kids, collection)
        return collection
    }

    /// A new RSA-2048 key with its kid (40 hex: SHA-1 of the public key's DER) and a self-signed certificate.
    package static func makeKey(now: Date) throws -> SigningKeyRecord {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = Insecure.SHA1.hash(data: privateKey.publicKey.derRepresentation).map { String(format: "%02x", $0) }
            .joined()
        let certificateKey = Certificate.PrivateKey(privateKey)
        let name = try DistinguishedName {
            CommonName("Gatehouse id_token signing key \(kid.prefix(8))")
            OrganizationName("Gatehouse")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: certificateKey)
        return SigningKeyRecord(
            kid: kid, privateKeyPEM: privateKey.pemRepresentation,
            certificatePEM: try certificate.serializeAsPEM().pemString,
            createdAt: now)
    }
}

extension SigningKeyRecord {
    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`), the Android SDK's form.
    package func publicKeyPEM() throws -> String {
        try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM).publicKey.pemRepresentation
    }

    /// The public key as a JWK, the form JWKS clients read.
    package func jwk() throws -> JSONValue {
        let key = try Insecure.RSA.PrivateKey(pem: privateKeyPEM).publicKey
        let (n, e) = try key.getKeyPrimitives()
        return [
            "kid": .string(kid), "kty": "RSA", "alg": "RS256", "use": "sig", "n": .string(Base64URL.encode(n)),
            "e": .string(Base64URL.encode(e)),
        ]
    }
}
