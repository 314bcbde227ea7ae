import GatehouseCore
import Foundation
import Hummingbird
import Logging

/// Creating console administrators and their login sessions (cookie `gh_admin`).
package struct AdminAccounts: Sendable {
    static let sessionCookie = "gh_admin"
    /// Console sessions last 12 hours: long enough for a working day, short enough for a shared machine.
    static let sessionLifetime: TimeInterval = 12 * 3600

    let services: GatehouseServices

    /// `__Host-gh_admin` where cookies are `Secure`, `gh_admin` on plain-http loopback (``SessionCookie``).
    var sessionCookieName: String { SessionCookie.name(Self.sessionCookie, services.configuration) }

    package init(services: GatehouseServices) { self.services = services }

    /// Creates an admin with a bcrypt-hashed password.
    /// - Throws: ``AccountError`` when the email is malformed, the password shorter than 12 characters, or the email taken.
    @discardableResult
    package func create(email: String, password: String) async throws -> AdminAccountRecord {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard email.count <= 320, email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else {
            throw AccountError("admin email \(email.prefix(64)) is not an email address")
        }
        guard password.count >= 12 else { throw AccountError("admin passwords need at least 12 characters") }
        guard password.utf8.count <= 72 else { throw AccountError("admin passwords are limited to 72 bytes (bcrypt)") }
        let record = AdminAccountRecord(
            id: services.random.uuidString().lowercased(), email: email,
            passwordHash: try await services.passwords.hash(password),
            createdAt: services.clock.now())
        do {
            try await services.storage.admins.create(record)
        } catch StorageError.conflict {
            throw AccountError("an admin with email \(email) already exists")
        }
        services.logger.notice("admin account created", metadata: ["admin": "\(record.id)"])
        return record
    }

    /// The admin behind the request's one console session cookie, if that session is live.
    package func current(_ request: Request) async throws -> AdminAccountRecord? {
        guard let secret = SessionCookie.single(sessionCookieName, in: request), !secret.isEmpty, secret.count <= 128
        else { return nil }
        guard let session = try await services.storage.admins.findSession(secretHash: SecretHash.sha256Hex(secret))
        else { return nil }
        guard session.expiresAt > services.clock.now() else {
            try await services.storage.admins.deleteSession(id: session.id)
            return nil
        }
        return try await services.storage.admins.find(id: session.adminID)
    }

    /// Starts a console session; returns its cookie (HttpOnly, SameSite=Strict, Path=/, Secure outside loopback dev).
    func startSession(adminID: String) async throws -> Cookie {
        let now = services.clock.now()
        let secret = services.random.alphanumeric(bits: 256)
        try await services.storage.admins.insertSession(
            AdminSessionRecord(
                id: services.random.uuidString(), secretHash: SecretHash.sha256Hex(secret), adminID: adminID,
                createdAt: now,
                expiresAt: now.addingTimeInterval(Self.sessionLifetime)))
        return Cookie(
            name: sessionCookieName, value: secret, maxAge: Int(Self.sessionLifetime), path: "/",
            secure: services.configuration.usesSecureCookies, httpOnly: true, sameSite: .strict)
    }

    /// Ends the request's console session and returns a cookie that clears it.
    func endSession(_ request: Request) async throws -> Cookie {
        if let secret = SessionCookie.single(sessionCookieName, in: request), secret.count <= 128,
            let session = try await services.storage.admins.findSession(secretHash: SecretHash.sha256Hex(secret))
        {
            try await services.storage.admins.deleteSession(id: session.id)
        }
        return Cookie(
            name: sessionCookieName, value: "", maxAge: 0, path: "/",
            secure: services.configuration.usesSecureCookies, httpOnly: true, sameSite: .strict)
    }
}
