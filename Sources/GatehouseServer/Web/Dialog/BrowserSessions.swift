import GatehouseCore
import Crypto
import Foundation
import GatehouseProtocol
import Hummingbird

/// The browser-session cookie (single sign-on across apps) and the CSRF cookie for forms.
struct BrowserSessions: Sendable {
    static let sessionCookie = "gh_session"
    static let csrfCookie = "gh_csrf"

    let services: GatehouseServices

    /// `__Host-gh_session` where cookies are `Secure`, `gh_session` on plain-http loopback (``SessionCookie``).
    var sessionCookieName: String { SessionCookie.name(Self.sessionCookie, services.configuration) }

    /// The logged-in person behind the request's session cookie, if the session is live.
    /// - Parameter anyState: also a session whose person is not `.active` (the account-state page's own form,
    ///   ``AccountGate``); every other page treats such a session as none.
    func current(_ request: Request, anyState: Bool = false) async throws -> (BrowserSessionRecord, UserRecord)? {
        guard let secretHash = secretHash(request) else { return nil }
        let storage = services.storage
        guard let session = try await storage.sessions.find(secretHash: secretHash), try await isLive(session) else {
            return nil
        }
        guard let user = try await storage.users.find(id: session.userID),
            isCurrent(session, for: user, anyState: anyState)
        else { return nil }
        return (session, user)
    }

    /// The live session's person with their grant, role and app-scoped id on `appID`: what the login dialog
    /// decides from, in one statement (``Storage/sessionRecords``).
    func current(_ request: Request, forApp appID: String) async throws -> DialogSession? {
        guard let secretHash = secretHash(request),
            let records = try await services.storage.sessionRecords.sessionRecords(
                secretHash: secretHash, appID: appID),
            try await isLive(records.session),
            let user = records.user, isCurrent(records.session, for: user)
        else { return nil }
        return DialogSession(
            session: records.session, user: user, grant: records.grant, role: records.role, scopedID: records.scopedID)
    }

    /// The hash of the session cookie's secret, when the request carries exactly one plausible one.
    private func secretHash(_ request: Request) -> String? {
        guard let secret = SessionCookie.single(sessionCookieName, in: request), !secret.isEmpty, secret.count <= 128
        else { return nil }
        return SecretHash.sha256Hex(secret)
    }

    /// Whether the session has not expired; an expired one is deleted.
    private func isLive(_ session: BrowserSessionRecord) async throws -> Bool {
        guard session.expiresAt > services.clock.now() else {
            try await services.storage.sessions.delete(id: session.id)
            return false
        }
        return true
    }

    /// Whether the session still speaks for the person: a password changed since it logged in ends it, and a
    /// person who is not `.active` (checkpointed, unconfirmed, …) has no session until their state's page is passed.
    private func isCurrent(_ session: BrowserSessionRecord, for user: UserRecord, anyState: Bool = false) -> Bool {
        guard anyState || user.accountState == .active else { return false }
        guard let changed = user.passwordChangedAt else { return true }
        return changed <= session.authenticatedAt
    }

    /// Starts a session for a person who just typed their password; returns the record and its cookie.
    func start(userID: String) async throws -> (BrowserSessionRecord, Cookie) {
        let now = services.clock.now()
        let secret = services.random.alphanumeric(bits: 256)
        let record = BrowserSessionRecord(
            id: services.random.uuidString(), secretHash: SecretHash.sha256Hex(secret), userID: userID, createdAt: now,
            expiresAt: now.addingTimeInterval(Lifetimes.browserSession), authenticatedAt: now)
        try await services.storage.sessions.insert(record)
        return (record, cookie(sessionCookieName, secret, maxAge: Int(Lifetimes.browserSession)))
    }

    /// The CSRF cookie's name: `__Host-gh_csrf` on a secure origin (the browser then refuses it from a sibling
    /// subdomain or plain http, and refuses a `Domain`), `gh_csrf` on plain-http loopback development.
    var csrfCookieName: String {
        let c = services.configuration
        return c.servesTLS || c.baseURL.lowercased().hasPrefix("https://")
            ? "__Host-" + Self.csrfCookie : Self.csrfCookie
    }

    /// The CSRF token for this browser, and a cookie to set when the browser had none.
    ///
    /// The token a form carries is the cookie's value bound to the browser's session: with a session
    /// (``sessionCookieName`` or the console's), it is the cookie value plus an HMAC of it keyed by the session secrets. Someone
    /// who plants a CSRF cookie of their own in the victim's browser still cannot produce the matching form token.
    /// - Parameter newSessionSecret: the secret of a session this response starts (its cookie is not in the
    ///   request yet), which the token is bound to instead of the request's.
    func csrfToken(_ request: Request, newSessionSecret: String? = nil) -> (String, Cookie?) {
        let cookies = request.cookies
        if let existing = cookies[csrfCookieName]?.value, existing.count == 43,
            existing.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            return (bound(existing, cookies, newSessionSecret: newSessionSecret), nil)
        }
        let token = services.random.alphanumeric(bits: 256)
        return (bound(token, cookies, newSessionSecret: newSessionSecret), cookie(csrfCookieName, token, maxAge: nil))
    }

    /// Double-submit check, bound to the session: the form's token must be the cookie's, bound to this request's session.
    func csrfValid(_ request: Request, formToken: String?) -> Bool {
        // `request.cookies` parses the whole Cookie header at every use: once here (it was four times a consent).
        let cookies = request.cookies
        guard let cookie = cookies[csrfCookieName]?.value, let formToken, !cookie.isEmpty else { return false }
        return constantTimeEquals(bound(cookie, cookies), formToken)
    }

    /// `raw`, or `raw.HMAC(session secrets, raw)` when the request carries a session cookie.
    private func bound(_ raw: String, _ cookies: Cookies, newSessionSecret: String? = nil) -> String {
        let session = newSessionSecret ?? cookies[sessionCookieName]?.value
        let secrets = [
            session, cookies[SessionCookie.name(AdminAccounts.sessionCookie, services.configuration)]?.value,
        ]
        .compactMap { $0 }.filter { !$0.isEmpty }
        return CSRFFormToken.bind(raw, toSessionSecrets: secrets)
    }

    /// HttpOnly, SameSite=Lax, Path=/, and Secure when served over https.
    func cookie(_ name: String, _ value: String, maxAge: Int?) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: "/", secure: services.configuration.usesSecureCookies,
            httpOnly: true, sameSite: .lax)
    }
}

/// A live browser session as the login dialog sees it: the person, and their grant, role and app-scoped id on
/// the dialog's app.
struct DialogSession: Sendable {
    var session: BrowserSessionRecord
    var user: UserRecord
    var grant: GrantRecord?
    var role: AppRole?
    /// nil when not read or not made yet: the completion then reads or makes it.
    var scopedID: String?
}
