import GatehouseCore
import Foundation
import Logging

/// Making, listing, revoking and checking admin API tokens (`Authorization: Bearer gha_…`).
///
/// A token is `gha_` followed by 43 random alphanumeric characters (256 bits). Only its SHA-256 is stored: a
/// slow password hash (bcrypt) protects *guessable* secrets against offline guessing, but a 256-bit random
/// token cannot be guessed, so one fast hash is as strong as any and lets every request find its token by an
/// indexed equality lookup instead of a bcrypt check per request.
package struct AdminTokens: Sendable {
    /// Every admin token starts with this, so secret scanners and people recognise one.
    package static let prefix = "gha_"
    /// Characters of the token kept for display (`gha_` and eight more): enough to tell tokens apart.
    static let displayLength = 12
    static let maximumNameLength = 64

    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// A new token and the only copy of its value.
    package struct Created: Sendable {
        package var record: AdminTokenRecord
        package var token: String
    }

    /// Makes a token named `name`; the returned value is never stored or shown again.
    /// - Throws: ``AccountError`` when the name is empty, too long or not printable.
    package func create(name: String, readOnly: Bool) async throws -> Created {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= Self.maximumNameLength,
            name.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) })
        else {
            throw AccountError("an admin token name is 1 to \(Self.maximumNameLength) printable characters")
        }
        let token = Self.prefix + services.random.alphanumeric(bits: 256)
        let record = AdminTokenRecord(
            id: services.random.uuidString().lowercased(), name: name,
            displayPrefix: String(token.prefix(Self.displayLength)),
            tokenHash: SecretHash.sha256Hex(token), readOnly: readOnly, createdAt: services.clock.now())
        try await services.storage.admins.insertToken(record)
        services.logger.notice("admin token created", metadata: ["admin_token": "\(record.id)", "name": "\(name)"])
        return Created(record: record, token: token)
    }

    /// Every token, revoked ones included, oldest first.
    package func list() async throws -> [AdminTokenRecord] {
        try await services.storage.admins.listTokens()
    }

    /// Revokes a token; false when there is no live token with this id.
    package func revoke(id: String) async throws -> Bool {
        let revoked = try await services.storage.admins.revokeToken(id: id, at: services.clock.now())
        if revoked { services.logger.notice("admin token revoked", metadata: ["admin_token": "\(id)"]) }
        return revoked
    }

    /// The live token whose value is `token`, or nil (unknown, revoked, or not shaped like a token).
    package func authenticate(_ token: String) async throws -> AdminTokenRecord? {
        // Shape first: anything else (a user access token sent here by mistake, a huge header) costs no lookup.
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 128 else { return nil }
        guard let record = try await services.storage.admins.findToken(hash: SecretHash.sha256Hex(token)),
            record.revokedAt == nil
        else { return nil }
        return record
    }
}
