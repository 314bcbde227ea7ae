import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// What a password login meets when the person's account is not `.active` (``AccountState``): the page Facebook
/// shows in that state, and the form that passes it.
///
/// - `checkpointed`: "Confirm it's you" with a Continue button; passing it goes on to where the login was going
///   (the login code if the person has one, then the consent step), and the account is active again once every
///   step is passed: with two-factor login, only when the code is right, so the password alone never clears it.
/// - `unconfirmed`: "Confirm your email", with "Send the email again" (``SignUpFlow``'s mailed link clears the
///   state through `AccountService.setAccountState`); in development mode "Confirm now" stands in for the link.
/// - `disabled`: "Your account has been disabled", and no login at all.
/// - `loggedOut`: nothing to show; the new login clears it (the old sessions and tokens stay ended).
///
/// A checkpointed or unconfirmed person gets no browser session with the page: the browser holds only `gh_state`,
/// a signed challenge naming the person (``SecondFactorChallenge`` under its own server key: ten minutes, void
/// once the password changes), which the Continue and "Send the email again" forms prove the password with.
/// Passing the page goes on through the rest of the login, the login code checkpoint included
/// (``SecondFactorGate``), and only then does a session start. (The page used to start a session that counted as
/// soon as the state cleared, so Continue, an administrator or the mailed link logged the browser in without the
/// login code.)
struct AccountGate: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }

    enum Outcome {
        /// Log in as usual, as this (possibly just reactivated) person.
        case proceed(UserRecord)
        /// Answer this page instead.
        case page(Response)
    }

    func register(on router: Router<GatehouseRequestContext>) {
        router.post(RouterPath(PagePath.Dialog.accountContinue)) { request, _ in try await pass(request) }
    }

    /// After a correct password: proceed, or the state's page. `next` is where the login was going (a local path).
    /// `request` is the login form's request (its old session, if any, is ended when a new one starts).
    func afterPassword(_ user: UserRecord, next: String, request: Request) async throws -> Outcome {
        switch user.accountState {
        case .active:
            // A person with two-factor login meets the login code checkpoint before any session starts.
            return try await SecondFactorGate(services: services, pages: pages).afterPassword(
                user, next: next, request: request)
        case .loggedOut:
            JournalNote.current?.explain(
                "\(user.fullName) was logged out everywhere; logging in again makes the account active")
            let active = try await services.accounts.setAccountState(of: user, to: .active)
            return try await SecondFactorGate(services: services, pages: pages).afterPassword(
                active, next: next, request: request)
        case .disabled:
            let reason = "\(user.fullName)'s account is disabled: the login is refused (tokens answer 190/465)"
            JournalNote.current?.explain(reason)
            services.metrics.login(.failure)
            await services.loginEvents.failed(.person, id: user.id, step: "account_state", reason: reason)
            return .page(page(for: user, next: next, request: request, cookies: []))
        case .checkpointed, .unconfirmed:
            JournalNote.current?.explain(
                "\(user.fullName)'s account is \(user.accountState.rawValue): the login stops at its page until it "
                    + "is passed; no session starts before it (and the login code, if any)"
            )
            let challenge = SecondFactorChallenge(userID: user.id, issuedAt: services.clock.now())
            let value = challenge.sealed(key: try await key(), passwordChangedAt: user.passwordChangedAt)
            let cookie = sessions.cookie(pendingCookieName, value, maxAge: Int(SecondFactorChallenge.lifetime))
            return .page(page(for: user, next: next, request: request, cookies: [cookie]))
        }
    }

    static let pendingCookie = "gh_state"
    private var pendingCookieName: String { SessionCookie.name(Self.pendingCookie, services.configuration) }

    /// The person whose state page this browser was shown after their password, from the `gh_state` challenge
    /// (nil when absent, forged, older than ten minutes or older than the person's last password change).
    func pendingPerson(_ request: Request) async throws -> UserRecord? {
        guard let value = SessionCookie.single(pendingCookieName, in: request) else { return nil }
        let users = services.storage.users
        guard
            let challenge = try await SecondFactorChallenge.open(
                value, key: try await key(), now: services.clock.now(),
                passwordChangedAt: { id in
                    guard let user = try await users.find(id: id) else { return .none }
                    return .some(user.passwordChangedAt)
                })
        else { return nil }
        return try await users.find(id: challenge.userID)
    }

    /// The server key `gh_state` is signed with: not the login code's, so neither challenge stands for the other.
    private func key() async throws -> [UInt8] {
        let random = services.random
        return try await services.storage.serverKeys.key(named: "account_state_challenge") { random.bytes(32) }
    }

    /// The state's page.
    func page(for user: UserRecord, next: String, request: Request, cookies: [Cookie]) -> Response {
        let (csrf, csrfCookie) = sessions.csrfToken(request)
        let development = services.configuration.mode == .development
        var values: [String: Any] = ["csrf": csrf, "next": next, "state": user.accountState.rawValue]
        let status: HTTPResponse.Status
        switch user.accountState {
        case .checkpointed:
            status = .ok
            values["headline"] = "Confirm it's you"
            values["paragraphs"] = [
                "We noticed unusual activity on your account, \(user.firstName). To keep it secure, confirm that it's you before you continue.",
                "Until you do, apps you use can't access your account.",
            ]
            values["continueForm"] = true
            values["buttonTitle"] = "Continue"
            values["buttonID"] = "checkpoint-continue"
            values["developerNote"] =
                "This person is checkpointed: their tokens answer 190/459 until they press Continue here."
        case .unconfirmed:
            status = .ok
            values["headline"] = "Confirm your email"
            values["paragraphs"] = [
                "Your account isn't confirmed yet, \(user.firstName). Check \(user.email) for the confirmation link we sent you.",
                "Until you confirm it, apps you use can't access your account.",
            ]
            // Issue 32: a fresh link by mail (the mail outbox; /console/mail in development).
            values["resendForm"] = true
            if development {
                values["continueForm"] = true
                values["buttonTitle"] = "Confirm now"
                values["buttonID"] = "confirm-now"
                values["developerNote"] =
                    "Development mode: Confirm now stands in for the email's link. The person's tokens answer 190/464 until then."
            } else {
                values["developerNote"] =
                    "This person is unconfirmed: their tokens answer 190/464 until the account is made active (console, CLI or admin API)."
            }
        case .disabled:
            status = .forbidden
            values["headline"] = "Your account has been disabled"
            values["paragraphs"] = ["You can't log in, \(user.firstName), because your account has been disabled."]
            values["developerNote"] = "This person is disabled: the login is refused and their tokens answer 190/465."
        case .active, .loggedOut:
            status = .ok
            values["headline"] = "You're logged in"
        }
        return PageRenderer.htmlResponse(
            status: status, html: pages.render("account-state", values),
            secureCookies: services.configuration.usesSecureCookies,
            cookies: cookies + (csrfCookie.map { [$0] } ?? []))
    }

    /// `POST /dialog/account/continue`: the checkpoint's Continue (or development mode's Confirm now) for the
    /// person in the `gh_state` challenge; the account becomes active and the login goes on as after a password:
    /// the login code checkpoint when the person has one, else a new session and `next`.
    func pass(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await PageForms(services: services, pages: pages).requireCSRF(request) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let next = Self.safeNext(form["next"]) else { return pages.loginLinkExpiredPage() }
        guard var user = try await pendingPerson(request) else {
            JournalNote.current?.explain(
                "the account page's form came without a valid gh_state challenge (expired after 10 minutes, the "
                    + "password changed, or the form was posted from another browser): log in again"
            )
            return PageRenderer.seeOther(SecondFactorGate.loginAgain(next))
        }
        JournalNote.current?.identify(personID: nil, personName: user.fullName)
        switch user.accountState {
        case .checkpointed:
            // Cleared below once every step of the login is passed: with two-factor login, only with the code.
            break
        case .unconfirmed where services.configuration.mode == .development:
            JournalNote.current?.explain("\(user.fullName) confirmed the account (development mode's Confirm now)")
            user = try await services.accounts.setAccountState(of: user, to: .active)
        case .active:
            // Cleared meanwhile (the console, the mailed link): the login still goes through the rest of its steps.
            JournalNote.current?.explain("\(user.fullName)'s account became active meanwhile; the login goes on")
        case .unconfirmed, .disabled, .loggedOut:
            JournalNote.current?.explain(
                "\(user.fullName)'s account is \(user.accountState.rawValue): Continue cannot pass it")
            return page(for: user, next: next, request: request, cookies: [])
        }
        let cleared = sessions.cookie(pendingCookieName, "", maxAge: 0)
        switch try await SecondFactorGate(services: services, pages: pages).afterPassword(
            user, next: next, request: request, passedCheckpoint: user.accountState == .checkpointed)
        {
        case .page(var response):
            response.setCookie(cleared)
            return response
        case .proceed(var person):
            if person.accountState == .checkpointed {
                JournalNote.current?.explain("\(person.fullName) passed the checkpoint; the account is active again")
                person = try await services.accounts.setAccountState(of: person, to: .active)
            }
            services.metrics.login(.success)
            return try await startSession(for: person, next: next, request: request, alsoSetting: [cleared])
        }
    }

    // MARK: After login

    /// The rest of a login once the password (or a development mode pick) is right: the account state's page or
    /// the login code checkpoint when either applies, else ``startSession(for:next:request:alsoSetting:)``.
    func finishLogin(_ person: UserRecord, next: String, request: Request) async throws -> Response {
        switch try await afterPassword(person, next: next, request: request) {
        case .page(let response): return response
        case .proceed(let user): return try await startSession(for: user, next: next, request: request)
        }
    }

    /// The step that ends every login, whichever page it began on: the browser's old session ends (even one whose
    /// person is no longer active), a new one starts, and the browser goes on to `next`, a dialog with the
    /// session's mark (``DialogReturn/afterLogin(_:session:)``).
    func startSession(for user: UserRecord, next: String, request: Request, alsoSetting cookies: [Cookie] = [])
        async throws -> Response
    {
        if let old = try await sessions.current(request, anyState: true) {
            try await services.storage.sessions.delete(id: old.0.id)
        }
        let (session, cookie) = try await sessions.start(userID: user.id)
        await services.loginEvents.succeeded(.person, id: user.id)
        return PageRenderer.seeOther(DialogReturn.afterLogin(next, session: session), cookies: [cookie] + cookies)
    }

    /// `next` when it is a local path of one of the pages that log people in (``LocalRedirect``: no other host,
    /// no scheme, no control or invisible characters).
    /// The dialog's own address can be long (an SDK's `state`, `e2e`, PKCE and scope parameters), so up to 8 KB,
    /// and it may sit under a version segment (`/v27.0/dialog/oauth?…`), as the SDKs open it.
    static func safeNext(_ next: String?) -> String? {
        guard let next, next.utf8.count <= 8192 else { return nil }
        let allowed = [PagePath.Dialog.prefix, PagePath.Device.home, PagePath.Settings.home, PagePath.Account.home]
        if let local = LocalRedirect.path(next, allowed: allowed, maxBytes: 8192) { return local }
        let segments = next.dropFirst().split(separator: "/", maxSplits: 1)
        guard segments.count == 2, GraphAPIVersion.isReleased(segments[0]),
            LocalRedirect.path("/" + segments[1], allowed: [PagePath.Dialog.prefix], maxBytes: 8192) != nil
        else { return nil }
        return LocalRedirect.path(next, allowed: ["/" + segments[0]], maxBytes: 8192)
    }
}
