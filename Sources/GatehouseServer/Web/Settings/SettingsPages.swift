import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The person's own privacy settings: the apps they logged in to, what each may see, and removal
/// ("people can revoke what they granted from their privacy settings at any time").
///
/// Every form carries the CSRF token and answers 303. Removing an app kills its tokens at once and
/// calls the app's deauthorize callback, exactly like `DELETE /me/permissions`.
struct SettingsPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var secure: Bool { services.configuration.usesSecureCookies }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.login)) { request, _ in
            try await loginPage(request, next: Self.safeNext(request.uri.queryParameters.get("next")), error: nil)
        }
        router.post(RouterPath(PagePath.login)) { request, context in try await login(request, context) }
        router.get(RouterPath(PagePath.Settings.home)) { _, _ in PageRenderer.seeOther(PagePath.Settings.apps) }
        router.get(RouterPath(PagePath.Settings.apps)) { request, _ in try await apps(request) }
        router.post(RouterPath(PagePath.Settings.appsRemove)) { request, _ in try await remove(request) }
        router.post(RouterPath(PagePath.Settings.appsRevoke)) { request, _ in try await revoke(request) }
        router.post(RouterPath(PagePath.Settings.appsDeleteData)) { request, _ in try await deleteData(request) }
    }

    /// The people's pages a login or logout may return to.
    static let nextAllowList = [
        PagePath.Settings.home, PagePath.Account.home, PagePath.Console.home, PagePath.Device.home,
        PagePath.Dialog.root,
    ]

    /// Only this server's own pages (``LocalRedirect``): never `//evil.example`, `/\t/evil.example` or an absolute URL.
    static func safeNext(_ raw: String?) -> String {
        LocalRedirect.path(raw, allowed: nextAllowList) ?? PagePath.Settings.apps
    }

    func loginPage(_ request: Request, next: String, error: String?, status: HTTPResponse.Status? = nil) async throws
        -> Response
    {
        let (csrf, cookie) = sessions.csrfToken(request)
        let html = pages.render(
            "login",
            [
                "csrf": csrf, "formAction": PagePath.login, "next": next, "error": error ?? "",
                "accountNext": AccountGate.safeNext(next).map { "?" + FormEncoding.encode([("next", $0)]) } ?? "",
            ])
        return PageRenderer.htmlResponse(
            status: status ?? (error == nil ? .ok : .unauthorized), html: html, secureCookies: secure,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// Checks the password through ``PasswordCheck`` (throttled and timed like every other password form).
    func login(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await PageForms(services: services, pages: pages).requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let next = Self.safeNext(form["next"])
        let email = form["email"] ?? "", password = form["password"] ?? ""
        switch try await PasswordCheck.people(services).person(email: email, password: password, ip: context.client.ip)
        {
        case .throttled(let seconds, let minutes):
            services.logger.notice("login refused", metadata: ["reason": "too many attempts", "page": "settings"])
            services.metrics.login(.limited)
            var response = try await loginPage(
                request, next: next, error: PasswordCheck.throttledMessage(minutes: minutes), status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .refused:
            services.logger.info("login refused", metadata: ["reason": "bad credentials", "page": "settings"])
            services.metrics.login(.failure)
            return try await loginPage(request, next: next, error: PasswordCheck.refusedMessage)
        case .accepted(let person):
            // A checkpointed, unconfirmed or disabled person meets their state's page first (``AccountGate``).
            return try await AccountGate(services: services, pages: pages).finishLogin(
                person, next: next, request: request)
        }
    }

    func apps(_ request: Request) async throws -> Response {
        guard let (_, user) = try await sessions.current(request) else {
            return PageRenderer.seeOther(PagePath.login(next: PagePath.Settings.apps))
        }
        let (csrf, cookie) = sessions.csrfToken(request)
        let now = services.clock.now()
        var rows: [[String: Any]] = []
        for grant in try await services.storage.grants.grants(userID: user.id) {
            guard let app = try await services.storage.apps.find(id: grant.appID) else { continue }
            func row(_ name: String, _ status: String, removable: Bool) -> [String: Any] {
                let info = Permission.info(name)
                return [
                    "name": name, "title": info?.title ?? name, "reveals": info?.reveals ?? "", "status": status,
                    "removable": removable, "appID": app.id, "appName": app.name,
                ]
            }
            let dataExpires = grant.dataAccessExpiresAt
            rows.append([
                "deletable": !(app.dataDeletionCallbackURL ?? "").isEmpty,
                "id": app.id, "name": app.name, "added": Self.day(grant.createdAt),
                "lastLogin": Self.day(grant.lastLoginAt),
                "dataAccess": dataExpires > now ? "until \(Self.day(dataExpires))" : "expired \(Self.day(dataExpires))",
                "permissions": grant.granted.map { row($0, "Allowed", removable: $0 != Permission.publicProfile) }
                    + grant.declined.map { row($0, "Not allowed", removable: false) },
            ])
        }
        let notice = request.uri.queryParameters.get("notice").flatMap(Self.notices.get)
        let deletions = try await DataDeletionRequests(services: services).rows(userID: user.id)
        let html = pages.render(
            "settings-apps",
            [
                "csrf": csrf, "userName": user.fullName, "apps": rows, "notice": notice ?? "",
                "hasDeletions": !deletions.isEmpty, "deletions": deletions,
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: secure, cookies: cookie.map { [$0] } ?? [])
    }

    func remove(_ request: Request) async throws -> Response {
        let (form, user): (FormBody, UserRecord)
        switch try await appsForm(request) {
        case .answer(let response): return response
        case .proceed(let fields, let person): (form, user) = (fields, person)
        }
        guard let appID = form["app_id"], appID.count <= 20,
            try await services.storage.grants.find(appID: appID, userID: user.id) != nil
        else {
            return PageRenderer.seeOther(PagePath.Settings.apps)
        }
        let scoped = try await services.storage.users.scopedID(appID: appID, userID: user.id)
        try await AppRemoval(services: services).remove(appID: appID, userID: user.id, scopedID: scoped)
        return PageRenderer.seeOther(PagePath.notice(PagePath.Settings.apps, "removed"))
    }

    /// Removes the app and asks it to delete the person's data (its data-deletion callback, through the outbox).
    func deleteData(_ request: Request) async throws -> Response {
        let (form, user): (FormBody, UserRecord)
        switch try await appsForm(request) {
        case .answer(let response): return response
        case .proceed(let fields, let person): (form, user) = (fields, person)
        }
        guard let appID = form["app_id"], appID.count <= 20, let app = try await services.storage.apps.find(id: appID),
            try await services.storage.grants.find(appID: appID, userID: user.id) != nil
        else { return PageRenderer.seeOther(PagePath.Settings.apps) }
        try await DataDeletionRequests(services: services).request(app: app, user: user)
        return PageRenderer.seeOther(PagePath.notice(PagePath.Settings.apps, "deletion"))
    }

    func revoke(_ request: Request) async throws -> Response {
        let (form, user): (FormBody, UserRecord)
        switch try await appsForm(request) {
        case .answer(let response): return response
        case .proceed(let fields, let person): (form, user) = (fields, person)
        }
        guard let appID = form["app_id"], appID.count <= 20, let permission = form["permission"],
            Permission.isKnown(permission)
        else {
            return PageRenderer.seeOther(PagePath.Settings.apps)
        }
        if permission == Permission.publicProfile { return try await remove(request) }
        _ = try await AppRemoval(services: services).revoke(permission, appID: appID, userID: user.id)
        return PageRenderer.seeOther(PagePath.notice(PagePath.Settings.apps, "revoked"))
    }

    /// Where a form posted from the apps page stands once checked: answered already, or its fields and person.
    private enum AppsForm {
        case answer(Response)
        case proceed(FormBody, UserRecord)
    }

    /// Checks a form posted from the apps page: an expired or forged one gets the expired-form page, one without a
    /// session the login page, which comes back to the apps page.
    private func appsForm(_ request: Request) async throws -> AppsForm {
        switch await PageForms(services: services, pages: pages).requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return .answer(page)
        case .accepted(let form):
            guard let (_, user) = try await sessions.current(request) else {
                return .answer(PageRenderer.seeOther(PagePath.login(next: PagePath.Settings.apps)))
            }
            return .proceed(form, user)
        }
    }

    static let notices = [
        "removed": "The app was removed. It can no longer see your information.",
        "revoked": "The permission was removed.",
        "deletion":
            "The app was removed and asked to delete your data. Its answer is shown under Data deletion requests.",
    ]

    static func day(_ date: Date) -> String { PageDates.utc(date, "d MMM yyyy") }
}

private extension Dictionary where Key == String, Value == String {
    func get(_ key: String) -> String? { self[key] }
}
