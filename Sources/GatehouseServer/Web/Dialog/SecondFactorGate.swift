import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The login code checkpoint (issue 32): after a correct password, a person with a confirmed Code Generator is
/// asked for its 6-digit code (or a recovery code) before any session starts. Every password form reaches it
/// through ``AccountGate/afterPassword(_:next:request:)``, so the login dialog, the settings, device and test-user
/// logins all ask.
///
/// Between the two steps the browser holds only the `gh_2fa` cookie (``SecondFactorChallenge``: signed, ten
/// minutes, void once the password changes). A right code starts the session and goes on to `next`, so an app sees
/// nothing but the time the login took. Codes are good once (``TwoFactorStore/useStep(userID:step:)``), and wrong
/// ones are counted per person: five in five minutes, then the checkpoint refuses without looking.
struct SecondFactorGate: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    static let challengeCookie = "gh_2fa"
    static let path = PagePath.Dialog.loginCode
    /// Wrong codes allowed per person per window before the checkpoint stops checking.
    static let attemptsPerWindow = 5
    static let windowSeconds = 300

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    private var cookieName: String { SessionCookie.name(Self.challengeCookie, services.configuration) }
    private var throttle: RateLimiter { RateLimiter(store: services.storage.rateLimits, clock: services.clock) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.post(RouterPath(Self.path)) { request, _ in try await submit(request) }
    }

    /// After a correct password (and an active account, or a checkpoint page just passed): go on, or the login code
    /// page with the challenge cookie.
    /// - Parameter passedCheckpoint: the person is still checkpointed and pressed Continue; the checkpoint is
    ///   cleared with the right code, not before (the caller clears it itself when there is no code to ask).
    func afterPassword(_ user: UserRecord, next: String, request: Request, passedCheckpoint: Bool = false) async throws
        -> AccountGate.Outcome
    {
        let record = try await services.storage.twoFactor?.find(userID: user.id)
        guard LoginAttempt.afterPassword(secondFactor: record) == .askLoginCode else { return .proceed(user) }
        JournalNote.current?.explain(
            "\(user.fullName) has two-factor login: the login stops at the login code checkpoint; no session until the code is right"
                + (passedCheckpoint ? " (and the account stays checkpointed until then)" : "")
        )
        let challenge = SecondFactorChallenge(
            userID: user.id, issuedAt: services.clock.now(), passedCheckpoint: passedCheckpoint)
        let value = challenge.sealed(key: try await key(), passwordChangedAt: user.passwordChangedAt)
        let cookie = sessions.cookie(cookieName, value, maxAge: Int(SecondFactorChallenge.lifetime))
        return .page(page(user: user, record: record, next: next, error: nil, request: request, cookies: [cookie]))
    }

    /// `POST /dialog/login_code`: the code for the challenge in the cookie.
    func submit(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await PageForms(services: services, pages: pages).requireCSRF(request) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let next = AccountGate.safeNext(form["next"]) else {
            JournalNote.current?.explain("the login code form's next page is not one of Gatehouse's own login pages")
            return pages.loginLinkExpiredPage()
        }
        guard let challenge = try await openChallenge(request),
            var user = try await services.storage.users.find(id: challenge.userID),
            let record = try await services.storage.twoFactor?.find(userID: user.id)
        else {
            JournalNote.current?.explain(
                "the login code came without a valid gh_2fa challenge (expired after 10 minutes, the password "
                    + "changed, or the form was posted from another browser): log in again"
            )
            return PageRenderer.seeOther(Self.loginAgain(next))
        }
        JournalNote.current?.identify(personID: nil, personName: user.fullName)
        let key = "2fa:user:\(user.id)"
        var within = try await throttle.allow(key, limit: Self.attemptsPerWindow, windowSeconds: Self.windowSeconds)
        // The day's budget behind the short window (issue 39, finding 7): past it each code waits a doubling delay,
        // and the owner is told. Counted only for codes the window let through, so a refused one takes no turn; a
        // right code hands its turn back, so only wrong codes spend the budget.
        var wait: Int?
        if within {
            wait = try await codeBudget.reserve(email: user.id, ip: nil)
            within = wait == nil
        }
        let facts = SecondFactorCheckpoint.Facts(
            record: record, typed: String((form["code"] ?? "").prefix(64)), now: services.clock.now(),
            throttled: !within)
        var verdict = SecondFactorCheckpoint.decide(facts)
        switch verdict {
        case .acceptCode(let step):
            if try await !(services.storage.twoFactor?.useStep(userID: user.id, step: step) ?? false) {
                verdict = .refuse(.alreadyUsed)
            }
        case .acceptRecoveryCode(let hash):
            if try await !(services.storage.twoFactor?.useRecoveryCode(userID: user.id, hash: hash) ?? false) {
                verdict = .refuse(.wrong)
            }
        case .refuse: break
        }
        if case .refuse(let refusal) = verdict {
            if refusal != .throttled { try await tellOwnerOnce(user) }
            JournalNote.current?.explain("login code refused: \(refusal.explanation)")
            services.logger.info("login code refused", metadata: ["user": "\(user.id)", "reason": "\(refusal)"])
            services.metrics.login(refusal == .throttled ? .limited : .failure)
            await services.loginEvents.failed(
                .person, id: user.id, step: "login_code", reason: "login code refused: \(refusal.explanation)")
            var response = page(
                user: user, record: record, next: next, error: refusal.message, request: request, cookies: [],
                status: refusal == .throttled ? .tooManyRequests : .unauthorized)
            if refusal == .throttled {
                response.headers[.retryAfter] = "\(wait ?? throttle.secondsLeft(windowSeconds: Self.windowSeconds))"
            }
            return response
        }
        if case .acceptRecoveryCode = verdict {
            JournalNote.current?.explain("\(user.fullName) logged in with a recovery code; it is used up")
            await services.events.record(.twoFactorUsed, personID: user.id, ["method": "recovery_code"])
        } else {
            await services.events.record(.twoFactorUsed, personID: user.id, ["method": "login_code"])
            JournalNote.current?.explain("\(user.fullName)'s login code was right; the session starts")
        }
        try await throttle.reset(key)
        try await codeBudget.refund(email: user.id)
        switch user.accountState {
        case .active: break
        case .checkpointed where challenge.passedCheckpoint:
            JournalNote.current?.explain(
                "\(user.fullName) passed the checkpoint and the login code; the account is active again")
            user = try await services.accounts.setAccountState(of: user, to: .active)
        default:
            // Put in a state after the password was typed: the login starts again and meets that state's page.
            JournalNote.current?.explain(
                "\(user.fullName)'s account became \(user.accountState.rawValue) during the login: log in again")
            return PageRenderer.seeOther(Self.loginAgain(next), cookies: [sessions.cookie(cookieName, "", maxAge: 0)])
        }
        services.logger.info("login", metadata: ["user": "\(user.id)", "second_factor": "yes"])
        services.metrics.login(.success)
        return try await AccountGate(services: services, pages: pages).startSession(
            for: user, next: next, request: request, alsoSetting: [sessions.cookie(cookieName, "", maxAge: 0)])
    }

    /// The longest wait between two codes once the day's budget is spent: an hour, so about 45 codes a day reach
    /// the check (0.014% a day at ±1 step of 10^6 codes) instead of the window's 1,440 (0.43%).
    static let longestCodeDelaySeconds = 3600

    /// Wrong codes a person may get per day before each further one waits (``AccountSlowdown``, keyed by id).
    private var codeBudget: AccountSlowdown {
        let limits = services.configuration.limits
        return AccountSlowdown(
            limiter: throttle, scope: "2fa", budget: limits.loginCodeAttemptsPerAccount, windowSeconds: 86_400,
            maxDelaySeconds: Self.longestCodeDelaySeconds, exemptsKnownNetworks: false)
    }

    /// Mails the owner, at most once a day, once the day's codes pass the budget: whoever is typing them has the
    /// password.
    private func tellOwnerOnce(_ user: UserRecord) async throws {
        let budget = codeBudget
        let attempts = try await budget.attempts(email: user.id)
        guard budget.budget > 0, attempts > budget.budget,
            try await throttle.allow("2fa:told:\(user.id)", limit: 1, windowSeconds: 86_400)
        else { return }
        JournalNote.current?.explain(
            "more than \(budget.budget) login codes today for \(user.fullName): each further code waits longer, and the owner is told by mail"
        )
        let mailer = AccountMailer(services: services, pages: pages)
        try await mailer.send(
            kind: "login_code_failures", userID: user.id, to: user.email,
            subject: "Someone is trying to log in to your \(services.configuration.mail.serviceName) account",
            values: [
                "firstName": user.firstName, "attempts": attempts,
                "link": mailer.link(PagePath.Settings.security),
            ])
    }

    /// The checkpoint page; development mode shows the current code, so tests and demos need no phone.
    func page(
        user: UserRecord, record: TwoFactorRecord?, next: String, error: String?, request: Request, cookies: [Cookie],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let (csrf, csrfCookie) = sessions.csrfToken(request)
        var values: [String: Any] = [
            "csrf": csrf, "next": next, "error": error ?? "", "firstName": user.firstName, "formAction": Self.path,
        ]
        if services.configuration.isDevelopment, let record,
            let code = Self.usableCode(record, now: services.clock.now())
        {
            values["developmentCode"] = code
        }
        return PageRenderer.htmlResponse(
            status: status, html: pages.render("login-code", values),
            secureCookies: services.configuration.usesSecureCookies,
            cookies: cookies + (csrfCookie.map { [$0] } ?? []))
    }

    /// A code the checkpoint accepts now: the current step's, or the next one's when the current one was used (the
    /// enrolment's own code, a moment ago). nil when none is usable yet.
    static func usableCode(_ record: TwoFactorRecord, now: Date) -> String? {
        guard let totp = record.totp else { return nil }
        let current = totp.step(at: now)
        let step = max(current, (record.lastUsedStep ?? .min) + 1)
        return step <= current + 1 ? totp.code(step: step) : nil
    }

    /// The challenge in the request's `gh_2fa` cookie, if it is genuine and current.
    private func openChallenge(_ request: Request) async throws -> SecondFactorChallenge? {
        guard let value = SessionCookie.single(cookieName, in: request) else { return nil }
        let users = services.storage.users
        return try await SecondFactorChallenge.open(value, key: try await key(), now: services.clock.now()) { id in
            guard let user = try await users.find(id: id) else { return .none }
            return .some(user.passwordChangedAt)
        }
    }

    /// The server key the challenge is signed with, made on first use and shared by every node.
    private func key() async throws -> [UInt8] {
        let random = services.random
        return try await services.storage.serverKeys.key(named: "two_factor_challenge") { random.bytes(32) }
    }

    /// Where to log in again when the challenge is gone: the dialog itself shows its login form.
    static func loginAgain(_ next: String) -> String {
        next.hasPrefix(PagePath.Dialog.prefix) || next.hasPrefix(PagePath.Device.home)
            ? next : PagePath.login(next: next)
    }
}
