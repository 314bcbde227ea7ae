import Foundation
import Hummingbird

/// The browser-session cookie (single sign-on across apps) and the CSRF cookie for forms.
struct BrowserSessions: Sendable {
    static let sessionCookie = "gh_session"
    static let csrfCookie = "gh_csrf"

    let services: GatehouseServices

    /// The logged-in person behind the request's session cookie, if the session is live.
    func current(_ request: Request) async throws -> (BrowserSessionRecord, UserRecord)? {
        guard let secret = request.cookies[Self.sessionCookie]?.value, !secret.isEmpty, secret.count <= 128 else { return nil }
        let storage = services.storage
        guard let session = try await storage.sessions.find(secretHash: SecretHash.sha256Hex(secret)) else { return nil }
        guard session.expiresAt > services.clock.now() else {
            try await storage.sessions.delete(id: session.id)
            return nil
        }
        guard let user = try await storage.users.find(id: session.userID) else { return nil }
        if let changed = user.passwordChangedAt, changed > session.authenticatedAt { return nil }
        return (session, user)
    }

    /// Starts a session for a person who just typed their password; returns the record and its cookie.
    func start(userID: String) async throws -> (BrowserSessionRecord, Cookie) {
        let now = services.clock.now()
        let secret = services.random.alphanumeric(bits: 256)
        let record = BrowserSessionRecord(
            id: UUID().uuidString, secretHash: SecretHash.sha256Hex(secret), userID: userID, createdAt: now,
            expiresAt: now.addingTimeInterval(Lifetimes.browserSession), authenticatedAt: now)
        try await services.storage.sessions.insert(record)
        return (record, cookie(Self.sessionCookie, secret, maxAge: Int(Lifetimes.browserSession)))
    }

    /// The CSRF token for this browser, and a cookie to set when the browser had none.
    func csrfToken(_ request: Request) -> (String, Cookie?) {
        if let existing = request.cookies[Self.csrfCookie]?.value, existing.count == 43,
           existing.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            return (existing, nil)
        }
        let token = services.random.alphanumeric(bits: 256)
        return (token, cookie(Self.csrfCookie, token, maxAge: nil))
    }

    /// Double-submit check: the form's token must equal the cookie's.
    func csrfValid(_ request: Request, formToken: String?) -> Bool {
        guard let cookie = request.cookies[Self.csrfCookie]?.value, let formToken, !cookie.isEmpty else { return false }
        return constantTimeEquals(cookie, formToken)
    }

    /// HttpOnly, SameSite=Lax, Path=/, and Secure when served over https.
    func cookie(_ name: String, _ value: String, maxAge: Int?) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: services.configuration.usesSecureCookies,
               httpOnly: true, sameSite: .lax)
    }
}
