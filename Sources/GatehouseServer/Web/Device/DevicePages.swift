import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The person's half of device login: `/device` in any browser. It reuses the dialog's login and consent
/// pages and browser session: log in (if needed), type the code from the TV, consent.
struct DevicePages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var forms: PageForms { PageForms(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Device.home)) { request, _ in try await show(request) }
        router.post(RouterPath(PagePath.Device.signIn)) { request, context in try await signIn(request, context) }
        router.post(RouterPath(PagePath.Device.consent)) { request, _ in try await consent(request) }
    }

    /// No session: the login page. A session and a `user_code`: the consent page. Else the code form.
    func show(_ request: Request) async throws -> Response {
        let typed = request.uri.queryParameters.get("user_code") ?? ""
        guard let (_, user) = try await sessions.current(request) else {
            return loginPage(request, userCode: typed, error: nil)
        }
        guard !typed.isEmpty else { return codePage(request, user: user, userCode: "", error: nil) }
        guard let code = DeviceLogin.normalizeUserCode(typed) else {
            return codePage(
                request, user: user, userCode: typed, error: "That is not a code from a device. Check it and try again."
            )
        }
        let record = try await services.storage.deviceCodes.find(userCode: code)
        switch DeviceLogin.checkEntry(record, now: services.clock.now()) {
        case .failure(let problem):
            return codePage(request, user: user, userCode: typed, error: Self.describe(problem))
        case .success(let record):
            guard let app = try await services.storage.apps.find(id: record.appID) else {
                return codePage(request, user: user, userCode: typed, error: Self.describe(.unknownOrExpired))
            }
            return try await consentPage(request, record: record, app: app, user: user)
        }
    }

    /// The login form posts here; on success the browser goes back to `/device` with its code.
    func signIn(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let userCode = Self.carriedUserCode(form["dialog"])
        let email = form["email"] ?? "", password = form["password"] ?? ""
        switch try await PasswordCheck.people(services).person(email: email, password: password, ip: context.client.ip)
        {
        case .throttled(let seconds, let minutes):
            services.metrics.login(.limited)
            var response = loginPage(
                request, userCode: userCode, error: PasswordCheck.throttledMessage(minutes: minutes),
                status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .refused:
            services.metrics.login(.failure)
            return loginPage(request, userCode: userCode, error: PasswordCheck.refusedMessage)
        case .accepted(let person):
            // A checkpointed, unconfirmed or disabled person meets their state's page first (``AccountGate``).
            return try await AccountGate(services: services, pages: pages).finishLogin(
                person, next: PagePath.Device.code(userCode), request: request)
        }
    }

    /// Continue or Cancel on the consent page.
    func consent(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let typed = Self.carriedUserCode(form["dialog"])
        guard let (session, user) = try await sessions.current(request) else {
            return PageRenderer.seeOther(PagePath.Device.code(typed))
        }
        let storage = services.storage
        for _ in 0..<3 {
            let now = services.clock.now()
            guard let code = DeviceLogin.normalizeUserCode(typed),
                let record = try await storage.deviceCodes.find(userCode: code),
                let app = try await storage.apps.find(id: record.appID)
            else { return codePage(request, user: user, userCode: typed, error: Self.describe(.unknownOrExpired)) }
            let approve = form["action"] != "cancel"
            let decided: DeviceCodeRecord
            switch DeviceLogin.decide(record, userID: user.id, approve: approve, now: now) {
            case .failure(let problem):
                return codePage(request, user: user, userCode: typed, error: Self.describe(problem))
            case .success(let next): decided = next
            }
            // The grant is saved before the code turns approved, so the device's token is valid the moment it gets it.
            if approve {
                let facts = try await self.facts(record, app: app, user: user, authenticatedAt: session.authenticatedAt)
                let plan = LoginAttempt.consentPlan(facts)
                let decision = LoginAttempt.decide(
                    facts, plan: plan, selected: form.all("permission"))
                try await storage.grants.save(
                    GrantRecord(
                        appID: app.id, userID: user.id, granted: decision.granted, declined: decision.declined,
                        createdAt: facts.grant?.createdAt ?? now, updatedAt: now, lastLoginAt: now,
                        defaultAudience: decision.defaultAudience))
            }
            // A poll may have touched the record meanwhile; then decide again on the fresh copy.
            guard
                try await storage.deviceCodes.update(
                    decided, expecting: .pending, expectedPolledAt: record.lastPolledAt)
            else { continue }
            services.logger.info(
                approve ? "device login approved" : "device login declined", metadata: ["app": "\(app.id)"])
            let html = pages.render(
                "device",
                [
                    "done": true,
                    "headline": approve ? "You're logged in on your device" : "Login cancelled",
                    "detail": approve
                        ? "\(app.name) on your device is now logged in as \(user.fullName). You can close this window."
                        : "\(app.name) on your device was not given access.",
                ])
            return PageRenderer.htmlResponse(
                status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies)
        }
        return codePage(request, user: user, userCode: typed, error: "The device is busy checking in. Try again.")
    }

    // MARK: Pages

    private func loginPage(_ request: Request, userCode: String, error: String?, status: HTTPResponse.Status? = nil)
        -> Response
    {
        let (csrf, cookie) = sessions.csrfToken(request)
        let html = pages.render(
            "login",
            [
                "csrf": csrf, "formAction": PagePath.Device.signIn,
                "dialog": FormEncoding.encode([("user_code", String(userCode.prefix(32)))]), "email": "",
                "error": error ?? "",
            ])
        return PageRenderer.htmlResponse(
            status: status ?? (error == nil ? .ok : .unauthorized), html: html,
            secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    private func codePage(_ request: Request, user: UserRecord, userCode: String, error: String?) -> Response {
        let html = pages.render(
            "device", ["userName": user.fullName, "userCode": String(userCode.prefix(32)), "error": error ?? ""])
        return PageRenderer.htmlResponse(
            status: error == nil ? .ok : .badRequest, html: html,
            secureCookies: services.configuration.usesSecureCookies)
    }

    private func consentPage(_ request: Request, record: DeviceCodeRecord, app: AppRecord, user: UserRecord)
        async throws -> Response
    {
        let plan = LoginAttempt.consentPlan(try await facts(record, app: app, user: user, authenticatedAt: nil))
        // One consent step on the device page: publish permissions (asked on a step of their own in the login
        // dialog) are listed with the read ones, and get the default audience, friends.
        let content = ConsentPage.Content(
            ask: plan.ask + plan.publish, plan: plan, dialog: FormEncoding.encode([("user_code", record.userCode)]),
            formAction: PagePath.Device.consent, mentionsRenewal: false)
        return try await ConsentPage(services: services, pages: pages).render(
            content, app: app, user: user, request: request)
    }

    // MARK: Helpers

    /// The consent rules of the login dialog, applied to the device's requested permissions.
    private func facts(_ record: DeviceCodeRecord, app: AppRecord, user: UserRecord, authenticatedAt: Date?)
        async throws -> LoginAttempt.Facts
    {
        let request = DialogRequest(
            clientID: app.id, redirectURI: "", state: nil, permissions: record.scopes, openID: false,
            responseType: ResponseType.parse(nil), authType: .rerequest, authNonce: nil, codeChallenge: nil,
            codeChallengeMethod: nil, nonce: nil, returnScopes: false, isLimited: false, droppedByLimitedLogin: [],
            answersWithNonce: false, rawQuery: "")
        return LoginAttempt.Facts(
            request: request, app: app, user: user, authenticatedAt: authenticatedAt, justAuthenticated: true,
            grant: try await services.storage.grants.find(appID: app.id, userID: user.id),
            role: try await services.storage.apps.role(appID: app.id, userID: user.id), now: services.clock.now())
    }

    /// The login and consent forms carry the code in their `dialog` field as `user_code=…`.
    static func carriedUserCode(_ dialog: String?) -> String {
        let pairs = FormEncoding.decode(dialog ?? "") ?? []
        return String((pairs.first { $0.0 == "user_code" }?.1 ?? "").prefix(32))
    }

    static func describe(_ problem: DeviceLogin.EntryProblem) -> String {
        switch problem {
        case .unknownOrExpired:
            "That code is not valid or has expired. Check the code on your device, or start again there for a new one."
        case .alreadyUsed: "That code has already been used. Start again on your device for a new one."
        }
    }
}
