import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The person's own security settings, next to "Apps and websites" (issue 32): where they are logged in (and
/// logging out of one session or all), changing the password, two-factor login on and off, and deleting the
/// account.
///
/// Every form carries the CSRF token bound to the session. The password-proving forms (change password, turn
/// two-factor off, delete the account) go through ``PasswordCheck``, so they are throttled like the login.
struct SecuritySettingsPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    var forms: PageForms { PageForms(services: services, pages: pages) }
    private var secure: Bool { services.configuration.usesSecureCookies }
    static let home = PagePath.Settings.security

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(Self.home)) { request, _ in try await show(request) }
        router.post(RouterPath(PagePath.Settings.sessionLogout)) { request, _ in try await logOutOne(request) }
        router.post(RouterPath(PagePath.Settings.sessionsLogoutAll)) { request, _ in try await logOutAll(request) }
        router.post(RouterPath(PagePath.Settings.password)) { request, context in
            try await changePassword(request, context)
        }
        router.post(RouterPath(PagePath.Settings.accountDelete)) { request, context in
            try await deleteAccount(request, context)
        }
    }

    /// The page, with an optional notice (`?notice=`) or an error for one of its forms.
    func show(_ request: Request, error: (form: String, message: String)? = nil, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        guard let (current, user) = try await sessions.current(request) else { return Self.logIn() }
        let (csrf, cookie) = sessions.csrfToken(request)
        var rows: [[String: Any]] = []
        for entry in try await services.storage.sessionActivity?.list(userID: user.id) ?? []
        where entry.session.expiresAt > services.clock.now() {
            var row: [String: Any] = [
                "id": entry.session.id, "device": DeviceDescription.describe(userAgent: entry.userAgent),
                "lastUsed": PageDates.utc(entry.lastUsedAt ?? entry.session.createdAt, "d MMM yyyy, HH:mm 'UTC'"),
                "current": entry.session.id == current.id,
            ]
            if let ip = entry.ip { row["ip"] = ip }
            rows.append(row)
        }
        let record = try await services.storage.twoFactor?.find(userID: user.id)
        var values: [String: Any] = [
            "csrf": csrf, "userName": user.fullName, "sessions": rows, "twoFactorOn": record?.isEnabled == true,
            "twoFactorAvailable": services.storage.twoFactor != nil,
            "notice": request.uri.queryParameters.get("notice").flatMap { Self.notices[String($0)] } ?? "",
        ]
        if record?.isEnabled == true {
            values["recoveryLeft"] = try await services.storage.twoFactor?.recoveryCodesLeft(userID: user.id) ?? 0
        }
        if let error { values[error.form + "Error"] = error.message }
        return PageRenderer.htmlResponse(
            status: status, html: pages.render("settings-security", values), secureCookies: secure,
            cookies: cookie.map { [$0] } ?? [])
    }

    func logOutOne(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (current, user) = try await sessions.current(request) else { return Self.logIn() }
        let id = form["session_id"] ?? ""
        let mine = try await services.storage.sessionActivity?.list(userID: user.id).map(\.session.id) ?? []
        guard mine.contains(id) else {
            JournalNote.current?.explain(
                "the session to log out is not one of \(user.fullName)'s sessions (already ended?)")
            return PageRenderer.seeOther(Self.home)
        }
        try await services.storage.sessions.delete(id: id)
        JournalNote.current?.explain("\(user.fullName) logged out one of their sessions from the settings")
        return PageRenderer.seeOther(
            id == current.id ? PagePath.login(next: Self.home) : PagePath.notice(Self.home, "logged-out"))
    }

    /// "Log out of all sessions": every other browser session of the person ends; this one stays, as Facebook keeps
    /// the browser you press it in. (Log out of this session alone is the row's own button.)
    func logOutAll(_ request: Request) async throws -> Response {
        if case .refused(let page) = await forms.requireCSRF(request, ifUnreadable: .expired) { return page }
        guard let (current, user) = try await sessions.current(request) else { return Self.logIn() }
        guard let activity = services.storage.sessionActivity else {
            // A storage that cannot list sessions: end them all and start this browser a new one.
            try await services.storage.sessions.deleteAll(userID: user.id)
            let (_, cookie) = try await sessions.start(userID: user.id)
            JournalNote.current?.explain(
                "\(user.fullName) logged out of every other session from the settings; this browser got a new one")
            return PageRenderer.seeOther(PagePath.notice(Self.home, "logged-out-all"), cookies: [cookie])
        }
        var ended = 0
        for entry in try await activity.list(userID: user.id) where entry.session.id != current.id {
            try await services.storage.sessions.delete(id: entry.session.id)
            ended += 1
        }
        JournalNote.current?.explain(
            "\(user.fullName) logged out of every other session from the settings (\(ended) ended); this browser stays logged in"
        )
        return PageRenderer.seeOther(PagePath.notice(Self.home, "logged-out-all"))
    }

    /// Change password: as a reset does, every token is revoked (190/460) and every session ended; this browser
    /// then gets a new session, as Facebook keeps you logged in where you changed it.
    func changePassword(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (_, user) = try await sessions.current(request) else { return Self.logIn() }
        let new = form["new_password"] ?? ""
        if let refusal = try await provePassword(user, form["current_password"] ?? "", context) {
            return try await show(request, error: ("password", refusal.message), status: refusal.status)
        }
        guard new.count >= 6, new.utf8.count <= 1024 else {
            JournalNote.current?.explain("the new password is shorter than 6 characters (or over 1024 bytes)")
            return try await show(
                request, error: ("password", "Your new password must be at least 6 characters long."),
                status: .badRequest)
        }
        guard new == (form["confirm_password"] ?? "") else {
            JournalNote.current?.explain("the new password and its confirmation differ")
            return try await show(
                request, error: ("password", "The passwords you entered don't match."), status: .badRequest)
        }
        try await services.accounts.changePassword(of: user, to: new)
        JournalNote.current?.explain(
            "\(user.fullName) changed their password: every token answers 190/460 and every session ended; this browser got a new one"
        )
        let (_, cookie) = try await sessions.start(userID: user.id)
        return PageRenderer.seeOther(PagePath.notice(Self.home, "password"), cookies: [cookie])
    }

    func deleteAccount(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let (_, user) = try await sessions.current(request) else { return Self.logIn() }
        if let refusal = try await provePassword(user, form["password"] ?? "", context) {
            return try await show(request, error: ("delete", refusal.message), status: refusal.status)
        }
        let told = try await AccountDeletion(services: services).delete(user)
        JournalNote.current?.explain(
            "\(user.fullName) deleted their account; deauthorize and data-deletion callbacks queued for "
                + "\(told.count) app\(told.count == 1 ? "" : "s")"
        )
        let cleared = sessions.cookie(sessions.sessionCookieName, "", maxAge: 0)
        let html = pages.render(
            "error",
            [
                "headline": "Your account was deleted",
                "detail": told.isEmpty
                    ? "Your information is gone."
                    : "Your information is gone. The apps you used were told to delete what they have: \(told.joined(separator: ", "))."
                    ,
            ])
        return PageRenderer.htmlResponse(status: .ok, html: html, secureCookies: secure, cookies: [cleared])
    }

    struct Refusal { var message: String; var status: HTTPResponse.Status }

    /// nil when `password` is the person's, through ``PasswordCheck`` (throttled like the login form).
    func provePassword(_ user: UserRecord, _ password: String, _ context: GatehouseRequestContext) async throws
        -> Refusal?
    {
        switch try await PasswordCheck.people(services).person(
            email: user.email, password: password, ip: context.client.ip)
        {
        case .accepted: return nil
        case .refused:
            JournalNote.current?.explain("the current password entered on the settings form is wrong")
            return Refusal(message: "The password you entered is incorrect.", status: .unauthorized)
        case .throttled(_, let minutes):
            JournalNote.current?.explain(
                "too many wrong passwords for this account or client; the settings form refuses for \(minutes) minute\(minutes == 1 ? "" : "s")"
            )
            return Refusal(message: PasswordCheck.throttledMessage(minutes: minutes), status: .tooManyRequests)
        }
    }

    static let notices = [
        "password": "Your password was changed. You were logged out everywhere else, and apps must log you in again.",
        "logged-out": "That session was logged out.",
        "logged-out-all": "You were logged out of every other session. This browser is still logged in.",
        "two-factor-off": "Two-factor authentication is off.",
    ]

    static func logIn() -> Response { PageRenderer.seeOther(PagePath.login(next: Self.home)) }
}
