import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The OAuth login dialog: `GET /dialog/oauth`, and the login and consent forms it posts.
struct DialogController: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }

    func register(on router: Router<GatehouseRequestContext>) {
        // `/vX.Y/dialog/oauth` reaches `show` through the Graph catch-all: Hummingbird's trie cannot hold
        // a first-level parameter route beside `**`.
        router.get("/dialog/oauth") { request, _ in try await show(request, version: nil) }
        router.post("/dialog/oauth/login") { request, context in try await login(request, context) }
        router.post("/dialog/oauth/consent") { request, context in try await consent(request, context) }
        router.post("/dialog/oauth/publish") { request, context in try await publish(request, context) }
        DevIdentityPicker(services: services, pages: pages).register(on: router)
        AccountGate(services: services, pages: pages).register(on: router)
    }

    // MARK: GET

    func show(_ request: Request, version: String?) async throws -> Response {
        if let version, GraphAPIVersion.parse(pathSegment: version) == nil {
            return errorPage(
                .notFound, headline: "Page not found", detail: "There is no page at this address.", hint: nil,
                request: request)
        }
        let (query, answeredVersion) = Self.versionCarried(in: request.uri.query ?? "", pathVersion: version)
        let parsed: (DialogRequest, AppRecord)
        switch try await DialogRequest.parse(query: query, findApp: services.storage.apps.find(id:)) {
        case .failure(let problem):
            if let note = JournalNote.current { await explain(problem, on: note) }
            return problemPage(problem, request: request)
        case .success(let value): parsed = value
        }
        // After the app and redirect checks, as Facebook names a bad app before a bad scope.
        if let refused = retiredScopesPage(
            query: query, version: answeredVersion ?? services.configuration.defaultGraphVersion, request: request)
        {
            return refused
        }
        let (dialog, app) = parsed
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        let params = FormEncoding.decode(query).map { Dictionary($0, uniquingKeysWith: { a, _ in a }) } ?? [:]
        let current = try await sessions.current(request, forApp: app.id)
        if let person = current?.user { JournalNote.current?.identify(personID: nil, personName: person.fullName) }
        var justAuthenticated = false
        if let session = current?.session, let mark = params["gh_reauth"], let epoch = Int(mark) {
            let authenticated = Int(session.authenticatedAt.timeIntervalSince1970)
            justAuthenticated =
                epoch == authenticated
                && services.clock.now().timeIntervalSince(session.authenticatedAt) < Lifetimes.reauthenticationWindow
        }
        let facts = facts(dialog, app, current, justAuthenticated: justAuthenticated)
        switch LoginAttempt.next(facts) {
        case .showLogin(let prefill):
            let error = params["gh_login_error"] != nil ? "The email or password you entered is incorrect." : nil
            return try await loginPage(dialog, app, request: request, email: prefill, error: error)
        case .showConsent(let plan):
            return try await consentPage(dialog, app, user: facts.user!, plan: plan, request: request)
        case .showPublishConsent(let plan):
            return try await publishPage(dialog, app, user: facts.user!, plan: plan, read: [], request: request)
        case .complete(let decision):
            let location = try await DialogCompletion(services: services).complete(
                request: dialog, app: app, user: facts.user!, grant: facts.grant, scopedID: current?.scopedID,
                decision: decision)
            var headers = HTTPFields()
            headers[.location] = location
            PageRenderer.applySecurityHeaders(to: &headers)
            return Response(status: .found, headers: headers)
        }
    }

    // MARK: POST login

    func login(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard let form = try await readForm(request, context) else { return badForm(request) }
        guard sessions.csrfValid(request, formToken: form["csrf_token"]) else { return csrfPage(request) }
        let rawDialog = Self.carriedQuery(form["dialog"] ?? "")
        // The feed and requests dialogs share this login form; `kind` says which dialog to return to.
        let kind = SocialDialogKind(rawValue: form["kind"] ?? "")
        let path = kind.map { "/dialog/\($0.rawValue)" } ?? "/dialog/oauth"
        let stillValid: Bool
        if let kind {
            stillValid = try await SocialDialogRequest.parse(
                kind: kind, query: rawDialog, findApp: services.storage.apps.find(id:)
            ).isUsable
        } else if case .success = try await DialogRequest.parse(
            query: rawDialog, findApp: services.storage.apps.find(id:))
        {
            stillValid = true
        } else {
            stillValid = false
        }
        guard stillValid else {
            return errorPage(
                .badRequest, headline: "This login link is no longer valid",
                detail: "Go back to the app and start again.", hint: nil, request: request)
        }
        let email = String((form["email"] ?? "").prefix(320)), password = form["password"] ?? ""
        let user: UserRecord
        switch try await PasswordCheck.people(services).person(email: email, password: password, ip: context.client.ip)
        {
        case .throttled(let seconds, let minutes):
            JournalNote.current?.explain(
                "too many failed password attempts for this account or client; try again in \(minutes) minute\(minutes == 1 ? "" : "s") (limits.login_attempts_per_account, _per_ip, _per_ipv6_48, _per_account_all_networks)"
            )
            services.logger.notice("login refused", metadata: ["reason": "too many attempts"])
            services.metrics.login(.limited)
            var response = errorPage(
                .tooManyRequests, headline: "Too many failed attempts.",
                detail: "For your security, wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again.", hint: nil,
                request: request)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .refused:
            JournalNote.current?.explain("the email or password was wrong; the login form is shown again")
            services.logger.info("login refused", metadata: ["reason": "bad credentials"])
            services.metrics.login(.failure)
            return PageRenderer.seeOther(path + "?" + rawDialog + "&gh_login_error=1")
        case .accepted(let person):
            JournalNote.current?.identify(personID: nil, personName: person.fullName)
            let next = { (session: BrowserSessionRecord?) in
                path + "?" + rawDialog
                    + (session.map { "&gh_reauth=\(Int($0.authenticatedAt.timeIntervalSince1970))" } ?? "")
            }
            switch try await AccountGate(services: services, pages: pages).afterPassword(
                person, next: next, request: request)
            {
            case .page(let response): return response
            case .proceed(let person): user = person
            }
        }
        if let old = try await sessions.current(request) { try await services.storage.sessions.delete(id: old.0.id) }
        let (session, cookie) = try await sessions.start(userID: user.id)
        services.logger.info("login", metadata: ["user": "\(user.id)"])
        services.metrics.login(.success)
        let mark = Int(session.authenticatedAt.timeIntervalSince1970)
        return PageRenderer.seeOther(path + "?" + rawDialog + "&gh_reauth=\(mark)", cookies: [cookie])
    }

    // MARK: POST consent

    func consent(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let step: ConsentStep
        switch try await consentStep(request, context) {
        case .answer(let response): return response
        case .proceed(let value): step = value
        }
        let (pairs, form, rawDialog, dialog, app, user) = (
            step.pairs, step.form, step.rawDialog, step.dialog, step.app, step.current.user
        )
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        JournalNote.current?.identify(personID: nil, personName: user.fullName)
        if form["action"] == "cancel" {
            JournalNote.current?.explain(
                "\(user.fullName) pressed Cancel on the consent page; the app gets error=access_denied")
            services.logger.info("consent cancelled", metadata: ["app": "\(app.id)"])
            services.metrics.consent(granted: false)
            return PageRenderer.seeOther(DialogRedirect.cancelled(dialog))
        }
        let facts = facts(dialog, app, step.current, justAuthenticated: true)
        let plan = LoginAttempt.consentPlan(facts)
        let selected = pairs.filter { $0.0 == "permission" }.map(\.1)
        switch LoginAttempt.afterReadConsent(facts, plan: plan, selected: selected) {
        case .showPublishConsent(let plan):
            return try await publishPage(
                dialog, app, user: user, plan: plan, read: selected.filter(plan.ask.contains), request: request)
        case .complete(let decision):
            let location = try await DialogCompletion(services: services).complete(
                request: dialog, app: app, user: user, grant: facts.grant, scopedID: step.current.scopedID,
                decision: decision)
            services.logger.info(
                "consent", metadata: ["app": "\(app.id)", "granted": "\(decision.granted.joined(separator: ","))"])
            services.metrics.consent(granted: true)
            return PageRenderer.seeOther(location)
        case .showLogin, .showConsent:
            return PageRenderer.seeOther("/dialog/oauth?" + rawDialog)
        }
    }

    // MARK: POST publish (the second step)

    /// The publish step's answer: the read choices carried from the first step, the publish permissions kept
    /// (none on "Skip") and the audience.
    func publish(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let step: ConsentStep
        switch try await consentStep(request, context) {
        case .answer(let response): return response
        case .proceed(let value): step = value
        }
        let (pairs, form, dialog, app, user) = (step.pairs, step.form, step.dialog, step.app, step.current.user)
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        JournalNote.current?.identify(personID: nil, personName: user.fullName)
        let facts = facts(dialog, app, step.current, justAuthenticated: true)
        let plan = LoginAttempt.consentPlan(facts)
        let read = pairs.filter { $0.0 == "read" }.map(\.1)
        let publish = form["action"] == "skip" ? [] : pairs.filter { $0.0 == "permission" }.map(\.1)
        let audience = form["audience"].flatMap(Audience.init(wireName:))
        let decision = LoginAttempt.decide(facts, plan: plan, selected: read + publish, audience: audience)
        let location = try await DialogCompletion(services: services).complete(
            request: dialog, app: app, user: user, grant: facts.grant, scopedID: step.current.scopedID,
            decision: decision)
        services.logger.info(
            "publish consent",
            metadata: [
                "app": "\(app.id)", "granted": "\(decision.granted.joined(separator: ","))",
                "audience": "\(decision.defaultAudience?.wireName ?? "none")",
            ])
        return PageRenderer.seeOther(location)
    }

    // MARK: Helpers

    /// What both consent steps read from their form once it has passed the checks.
    struct ConsentStep {
        var pairs: [(String, String)]
        var form: [String: String]
        var rawDialog: String
        var dialog: DialogRequest
        var app: AppRecord
        /// The session, its person, and their grant and role on `app`.
        var current: DialogSession
    }

    enum ConsentStepOutcome {
        case answer(Response)
        case proceed(ConsentStep)
    }

    /// The checks both consent steps share: a readable form, the CSRF token, a still-valid dialog, a session.
    private func consentStep(_ request: Request, _ context: GatehouseRequestContext) async throws -> ConsentStepOutcome
    {
        guard let pairs = try await readFormPairs(request, context) else { return .answer(badForm(request)) }
        let form = Dictionary(pairs, uniquingKeysWith: { a, _ in a })
        guard sessions.csrfValid(request, formToken: form["csrf_token"]) else { return .answer(csrfPage(request)) }
        let rawDialog = Self.carriedQuery(form["dialog"] ?? "")
        guard
            case .success(let (dialog, app)) = try await DialogRequest.parse(
                query: rawDialog, findApp: services.storage.apps.find(id:))
        else {
            return .answer(
                errorPage(
                    .badRequest, headline: "This login link is no longer valid",
                    detail: "Go back to the app and start again.", hint: nil, request: request))
        }
        guard let current = try await sessions.current(request, forApp: app.id) else {
            return .answer(PageRenderer.seeOther("/dialog/oauth?" + rawDialog))
        }
        return .proceed(
            ConsentStep(pairs: pairs, form: form, rawDialog: rawDialog, dialog: dialog, app: app, current: current))
    }

    /// What the login attempt decides from; `current` is nil when nobody is logged in.
    private func facts(_ dialog: DialogRequest, _ app: AppRecord, _ current: DialogSession?, justAuthenticated: Bool)
        -> LoginAttempt.Facts
    {
        LoginAttempt.Facts(
            request: dialog, app: app, user: current?.user, authenticatedAt: current?.session.authenticatedAt,
            justAuthenticated: justAuthenticated, grant: current?.grant, role: current?.role, now: services.clock.now())
    }

    /// The dialog query without Gatehouse's own step markers, so they never pile up.
    static func carriedQuery(_ raw: String) -> String {
        raw.split(separator: "&").filter { !$0.hasPrefix("gh_") }.joined(separator: "&")
    }

    func readFormPairs(_ request: Request, _ context: GatehouseRequestContext) async throws -> [(String, String)]? {
        await FormBody.read(request, limit: services.configuration.maxBodyBytes)?.pairs
    }

    func readForm(_ request: Request, _ context: GatehouseRequestContext) async throws -> [String: String]? {
        await FormBody.read(request, limit: services.configuration.maxBodyBytes)?.fields
    }

    private func loginPage(_ dialog: DialogRequest, _ app: AppRecord, request: Request, email: String?, error: String?)
        async throws -> Response
    {
        try await loginPage(
            rawQuery: dialog.rawQuery, kind: nil, app: app, request: request, email: email, error: error,
            reauthenticate: dialog.authType == .reauthenticate)
    }

    /// The login form for any dialog; `kind` names a social dialog to come back to (nil: the login dialog).
    func loginPage(
        rawQuery: String, kind: SocialDialogKind?, app: AppRecord, request: Request, email: String?, error: String?,
        reauthenticate: Bool = false
    ) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        var values: [String: Any] = [
            "appName": app.name, "appID": app.id, "csrf": csrf, "dialog": Self.carriedQuery(rawQuery),
            "email": email ?? "",
            "error": error ?? "", "reauthenticate": reauthenticate, "formAction": "/dialog/oauth/login",
            "kind": kind?.rawValue ?? "",
        ]
        // "Create new account" and "Forgotten password?" carry this dialog along, so the flow ends back here.
        let address = (kind.map { "/dialog/\($0.rawValue)" } ?? "/dialog/oauth") + "?" + Self.carriedQuery(rawQuery)
        if let next = AccountGate.safeNext(address) {
            values["accountNext"] = "?" + FormEncoding.encode([("next", next)])
        }
        // A re-authentication must prove the password: no picking then.
        if !reauthenticate {
            values.merge(try await DevIdentityPicker(services: services, pages: pages).values(app: app)) { a, _ in a }
        }
        let html = pages.render("login", values)
        return PageRenderer.htmlResponse(
            status: error == nil ? .ok : .unauthorized, html: html,
            secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    private func consentPage(
        _ dialog: DialogRequest, _ app: AppRecord, user: UserRecord, plan: LoginAttempt.ConsentPlan, request: Request
    ) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        func row(_ name: String) -> [String: Any] {
            let info = Permission.info(name)
            return [
                "name": name, "title": info?.title ?? name, "reveals": info?.reveals ?? "",
                "required": name == Permission.publicProfile,
            ]
        }
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        let html = pages.render(
            "consent",
            [
                "appName": app.name, "appID": app.id, "csrf": csrf, "dialog": Self.carriedQuery(dialog.rawQuery),
                "userName": user.fullName, "userFirstName": user.firstName,
                "userPicture": "/pictures/\(app.id)/\(scoped)?size=112",
                "ask": plan.ask.map(row), "unavailable": plan.unavailable.map(row),
                "hasAlreadyGranted": !plan.alreadyGranted.isEmpty,
                "alreadyGranted": plan.alreadyGranted.map { Permission.info($0)?.title ?? $0 }.joined(separator: ", "),
                "renewsDataAccess": plan.renewsDataAccess,
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    private func publishPage(
        _ dialog: DialogRequest, _ app: AppRecord, user: UserRecord, plan: LoginAttempt.ConsentPlan, read: [String],
        request: Request
    ) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        let html = pages.render(
            "publish",
            [
                "appName": app.name, "csrf": csrf, "dialog": Self.carriedQuery(dialog.rawQuery),
                "userName": user.fullName, "userPicture": "/pictures/\(app.id)/\(scoped)?size=112",
                "read": read,
                "publish": plan.publish.map { name -> [String: Any] in
                    let info = Permission.info(name)
                    return ["name": name, "title": info?.title ?? name, "reveals": info?.reveals ?? ""]
                },
                "audiences": Self.audienceOptions(selected: plan.audience),
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// The audience selector's options, narrowest first, with `selected` preselected.
    static func audienceOptions(selected: Audience) -> [[String: Any]] {
        Audience.allCases.map { ["value": $0.wireName, "label": $0.label, "selected": $0 == selected] }
    }

    /// The journal's reason for a dialog link Gatehouse cannot use; for an unregistered redirect URI it reads the
    /// app (only then) to list what is registered and where the closest one differs.
    func explain(_ problem: DialogRequest.Problem, on note: JournalNote) async {
        switch problem {
        case .redirectURINotAllowed(let appID, let uri):
            let app = try? await services.storage.apps.find(id: appID)
            if let app { note.identify(appID: app.id, appName: app.name) }
            note.explain(
                JournalExplanation.redirectURINotRegistered(
                    uri, appName: app?.name ?? appID, registered: app?.redirectURIs ?? []))
        case .unknownApp(let id):
            note.explain("no app has the client_id `\(id.prefix(40))`")
        default:
            note.explain(problem.headline + ": " + problem.developerHint)
        }
    }

    /// The dialog's query with the path's Graph API version carried in it as `graph_api_version`, and the version
    /// the dialog answers at. The login and consent forms come back to the unversioned `/dialog/oauth`, so a
    /// dialog opened at `/v2.3/dialog/oauth` keeps answering as v2.3 (its retired permissions stay grantable).
    /// Carried only for versions before the last removal (v2.4).
    static func versionCarried(in query: String, pathVersion: String?) -> (query: String, version: String?) {
        let carriedText: String? = (FormEncoding.decode(query) ?? []).first { $0.0 == versionParameter }?.1
        let carried = carriedText.flatMap { GraphAPIVersion.parse(pathSegment: $0) }
        guard let pathVersion else { return (query, carried) }
        // Only versions that answer differently from today's are carried; other dialogs' queries stay as sent.
        if carried == pathVersion
            || Permission.removed(Permission.retired.map(\.info.name), at: pathVersion).count
                == Permission.retired.count
        {
            return (query, pathVersion)
        }
        let kept = query.split(separator: "&").filter { !$0.hasPrefix(versionParameter + "=") }.joined(separator: "&")
        return ((kept.isEmpty ? "" : kept + "&") + versionParameter + "=" + pathVersion, pathVersion)
    }

    static let versionParameter = "graph_api_version"

    /// Permissions Facebook removed (`read_stream`, `user_interests`, …) asked for at a version after their
    /// removal: Facebook's "Invalid Scopes" page, word for word. At earlier versions they pass on and are granted.
    func retiredScopesPage(query: String, version: String, request: Request) -> Response? {
        let pairs = FormEncoding.decode(query) ?? []
        let scope = Permission.parseScope(pairs.first { $0.0 == "scope" }?.1 ?? "")
        let removed = Permission.removed(scope, at: version)
        guard !removed.isEmpty else { return nil }
        let message = Permission.invalidScopesMessage(removed.prefix(10).map { GraphError.echo($0) })
        JournalNote.current?.explain(
            "the dialog asked at \(version) for permissions Facebook removed in v2.4: \(removed.joined(separator: ", "))"
        )
        return errorPage(.badRequest, headline: "Invalid Scopes", detail: message, hint: nil, request: request)
    }

    func problemPage(_ problem: DialogRequest.Problem, request: Request) -> Response {
        errorPage(
            .badRequest, headline: problem.headline,
            detail: "The app sent you to a login link that Gatehouse cannot use. Nothing was shared with the app.",
            hint: problem.developerHint, request: request)
    }

    func errorPage(_ status: HTTPResponse.Status, headline: String, detail: String, hint: String?, request: Request)
        -> Response
    {
        let html = pages.render("error", ["headline": headline, "detail": detail, "hint": hint ?? ""])
        return PageRenderer.htmlResponse(
            status: status, html: html, secureCookies: services.configuration.usesSecureCookies)
    }

    func csrfPage(_ request: Request) -> Response {
        JournalNote.current?.explain(
            "the form's CSRF token does not match the gh_csrf cookie: the page was stale, opened in another browser, or cookies are blocked"
        )
        return errorPage(
            .forbidden, headline: "This form has expired",
            detail: "For your security the form could not be accepted. Go back, reload the page and try again.",
            hint: nil, request: request)
    }

    func badForm(_ request: Request) -> Response {
        errorPage(
            .badRequest, headline: "The form could not be read",
            detail: "The request was too large or not valid form data.", hint: nil, request: request)
    }
}
