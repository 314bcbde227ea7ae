import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// Turning two-factor login on and off from the person's settings (issue 32).
///
/// On: `POST /settings/two-factor/start` with the password makes a secret (not yet asked at login), `GET /settings/two-factor`
/// shows it as an `otpauth://` URI (drawn as a QR code, ``TwoFactorQRCode``) and as base32 text to type into an
/// authenticator app, and
/// `POST /settings/two-factor/confirm` takes the first code the app shows; only then is login asked for codes, and
/// the ten recovery codes are shown, once. Off: `POST /settings/two-factor/disable` with the password.
struct TwoFactorSettingsPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var settings: SecuritySettingsPages { SecuritySettingsPages(services: services, pages: pages) }
    private var secure: Bool { services.configuration.usesSecureCookies }
    static let setupPath = PagePath.Settings.twoFactor

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(Self.setupPath)) { request, _ in try await setup(request, error: nil) }
        router.post(RouterPath(PagePath.Settings.twoFactorStart)) { request, context in
            try await start(request, context)
        }
        router.post(RouterPath(PagePath.Settings.twoFactorConfirm)) { request, _ in try await confirm(request) }
        router.post(RouterPath(PagePath.Settings.twoFactorDisable)) { request, context in
            try await disable(request, context)
        }
    }

    /// Asks for the password, as turning it off does (issue 39, finding 6): a stolen session alone must not be
    /// able to put the thief's authenticator between the owner and their account.
    func start(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await settings.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (_, user) = try await sessions.current(request) else { return SecuritySettingsPages.logIn() }
        guard let store = services.storage.twoFactor else { return PageRenderer.seeOther(SecuritySettingsPages.home) }
        if try await store.find(userID: user.id)?.isEnabled == true {
            return PageRenderer.seeOther(SecuritySettingsPages.home)
        }
        if let refusal = try await settings.provePassword(user, form["password"] ?? "", context) {
            return try await settings.show(request, error: ("twoFactor", refusal.message), status: refusal.status)
        }
        try await store.save(
            TwoFactorRecord(
                userID: user.id, secret: Base32.encode(services.random.bytes(20)), createdAt: services.clock.now()))
        JournalNote.current?.explain(
            "\(user.fullName) started turning on two-factor login; logins ask for codes once the first code is confirmed"
        )
        return PageRenderer.seeOther(Self.setupPath)
    }

    /// The secret to add to the authenticator app, and the form for its first code.
    func setup(_ request: Request, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let (_, user) = try await sessions.current(request) else { return SecuritySettingsPages.logIn() }
        guard let record = try await services.storage.twoFactor?.find(userID: user.id), !record.isEnabled,
            let totp = record.totp
        else {
            return PageRenderer.seeOther(SecuritySettingsPages.home)
        }
        let (csrf, cookie) = sessions.csrfToken(request)
        var values: [String: Any] = [
            "csrf": csrf, "uri": totp.provisioningURI(issuer: "Gatehouse", account: user.email),
            "secret": Self.grouped(record.secret), "error": error ?? "",
        ]
        if services.configuration.isDevelopment { values["developmentCode"] = totp.code(at: services.clock.now()) }
        var response = PageRenderer.htmlResponse(
            status: status, html: pages.render("settings-two-factor", values), secureCookies: secure,
            cookies: cookie.map { [$0] } ?? [])
        // The QR code's two same-origin scripts (``TwoFactorQRCode``); other pages keep the script-less CSP.
        response.headers[.contentSecurityPolicy] = TwoFactorQRCode.pageCSP
        return response
    }

    func confirm(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await settings.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (_, user) = try await sessions.current(request) else { return SecuritySettingsPages.logIn() }
        guard let store = services.storage.twoFactor, var record = try await store.find(userID: user.id),
            !record.isEnabled,
            let totp = record.totp
        else { return PageRenderer.seeOther(SecuritySettingsPages.home) }
        let now = services.clock.now()
        guard
            let step = SecondFactorCheckpoint.confirmEnrolment(
                secret: totp, typed: String((form["code"] ?? "").prefix(64)), now: now)
        else {
            JournalNote.current?.explain(
                "the first code from the authenticator app does not match the new secret (within one 30-second step); two-factor login stays off"
            )
            return try await setup(
                request,
                error: "The code you entered isn't correct. Check that your app shows Gatehouse's code and try again.",
                status: .unauthorized)
        }
        record.confirmedAt = now
        record.lastUsedStep = step
        try await store.save(record)
        let random = services.random
        let codes = RecoveryCodes.make { random.bytes(1)[0] }
        try await store.replaceRecoveryCodes(userID: user.id, hashes: codes.compactMap(RecoveryCodes.hash))
        JournalNote.current?.explain(
            "\(user.fullName) turned on two-factor login; ten recovery codes were shown once (stored hashed)")
        services.logger.info("two-factor login on", metadata: ["user": "\(user.id)"])
        await services.events.record(.twoFactorEnrolled, personID: user.id, ["method": "totp"])
        let html = pages.render("settings-two-factor", ["showCodes": true, "recoveryCodes": codes])
        return PageRenderer.htmlResponse(status: .ok, html: html, secureCookies: secure)
    }

    func disable(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await settings.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (_, user) = try await sessions.current(request) else { return SecuritySettingsPages.logIn() }
        if let refusal = try await settings.provePassword(user, form["password"] ?? "", context) {
            return try await settings.show(request, error: ("twoFactor", refusal.message), status: refusal.status)
        }
        try await services.storage.twoFactor?.delete(userID: user.id)
        JournalNote.current?.explain(
            "\(user.fullName) turned off two-factor login; the secret and recovery codes are deleted")
        services.logger.info("two-factor login off", metadata: ["user": "\(user.id)"])
        await services.events.record(.twoFactorDisabled, personID: user.id)
        return PageRenderer.seeOther(PagePath.notice(SecuritySettingsPages.home, "two-factor-off"))
    }

    /// `ABCD EFGH …`: easier to type by hand.
    static func grouped(_ secret: String) -> String {
        var out = ""
        for (i, c) in secret.enumerated() {
            if i > 0 && i % 4 == 0 { out.append(" ") }
            out.append(c)
        }
        return out
    }
}
