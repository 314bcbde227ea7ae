import GatehouseCore
import GatehouseProtocol
import Hummingbird
import Logging

/// `POST /dialog/oauth/consent` and `/dialog/oauth/publish`: the consent page's answer and the publish step's.
extension DialogController {
    // MARK: POST consent

    func consent(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let step: ConsentStep
        switch try await consentStep(request, context) {
        case .answer(let response): return response
        case .proceed(let value): step = value
        }
        let (form, dialog, app, user) = (step.form, step.dialog, step.app, step.current.user)
        if form["action"] == "cancel" {
            JournalNote.current?.explain(
                "\(user.fullName) pressed Cancel on the consent page; the app gets error=access_denied")
            services.logger.info("consent cancelled", metadata: ["app": "\(app.id)"])
            services.metrics.consent(granted: false)
            return PageRenderer.seeOther(DialogRedirect.cancelled(dialog))
        }
        let facts = facts(dialog, app, step.current, justAuthenticated: true)
        let plan = LoginAttempt.consentPlan(facts)
        let selected = form.all("permission")
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
            return PageRenderer.seeOther(step.back.url)
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
        let (form, dialog, app, user) = (step.form, step.dialog, step.app, step.current.user)
        let facts = facts(dialog, app, step.current, justAuthenticated: true)
        let plan = LoginAttempt.consentPlan(facts)
        let read = form.all("read")
        let publish = form["action"] == "skip" ? [] : form.all("permission")
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

    /// What both consent steps read from their form once it has passed the checks.
    struct ConsentStep {
        var form: FormBody
        /// The dialog again: where a step that cannot go on sends the browser.
        var back: DialogReturn
        var dialog: DialogRequest
        var app: AppRecord
        /// The session, its person, and their grant and role on `app`.
        var current: DialogSession
    }

    enum ConsentStepOutcome {
        case answer(Response)
        case proceed(ConsentStep)
    }

    /// The checks both consent steps share: a readable form, the CSRF token, a still-valid dialog, a session; the
    /// journal then knows the app and the person.
    private func consentStep(_ request: Request, _ context: GatehouseRequestContext) async throws -> ConsentStepOutcome
    {
        let form: FormBody
        switch await forms.requireCSRF(request) {
        case .refused(let page): return .answer(page)
        case .accepted(let body): form = body
        }
        let back = DialogReturn(rawQuery: form["dialog"] ?? "")
        guard
            case .success(let (dialog, app)) = try await DialogRequest.parse(
                query: back.query, findApp: services.storage.apps.find(id:))
        else { return .answer(pages.loginLinkExpiredPage()) }
        guard let current = try await sessions.current(request, forApp: app.id) else {
            return .answer(PageRenderer.seeOther(back.url))
        }
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        JournalNote.current?.identify(personID: nil, personName: current.user.fullName)
        return .proceed(ConsentStep(form: form, back: back, dialog: dialog, app: app, current: current))
    }
}
