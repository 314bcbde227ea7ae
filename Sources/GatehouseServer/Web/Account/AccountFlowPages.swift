import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// What sign-up, confirmation and password reset share: the form reading, CSRF, the throttle and the pages.
struct AccountFlowPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    var forms: PageForms { PageForms(services: services, pages: pages) }
    var secure: Bool { services.configuration.usesSecureCookies }
    var mailer: AccountMailer { AccountMailer(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        let signUp = SignUpFlow(flow: self)
        router.get(RouterPath(PagePath.Account.signUp)) { request, _ in try await signUp.form(request) }
        router.post(RouterPath(PagePath.Account.signUp)) { request, context in try await signUp.submit(request, context)
        }
        router.get(RouterPath(PagePath.Account.confirm)) { request, _ in try await signUp.confirmPage(request) }
        router.post(RouterPath(PagePath.Account.confirm)) { request, _ in try await signUp.confirm(request) }
        router.post(RouterPath(PagePath.Account.confirmResend)) { request, context in
            try await signUp.resend(request, context)
        }
        let recovery = PasswordRecoveryFlow(flow: self)
        router.get(RouterPath(PagePath.Account.recover)) { request, _ in try await recovery.form(request) }
        router.post(RouterPath(PagePath.Account.recover)) { request, context in
            try await recovery.submit(request, context)
        }
        router.get(RouterPath(PagePath.Account.reset)) { request, _ in try await recovery.resetPage(request) }
        router.post(RouterPath(PagePath.Account.reset)) { request, context in try await recovery.reset(request, context)
        }
    }

    /// A page of the `account-flow` template with a fresh CSRF token.
    func page(_ request: Request, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        var values = values
        values["csrf"] = csrf
        values["serviceName"] = services.configuration.mail.serviceName
        // Every page of a flow that began at a dialog's "Create new account" or "Forgotten password?" carries the
        // dialog's address, and its "Log in" goes back there.
        let next = (values["next"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        values["loginHref"] = Self.loginHref(next)
        return PageRenderer.htmlResponse(
            status: status, html: pages.render(values["template"] as? String ?? "account-flow", values),
            secureCookies: secure,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// Every refusal says why in the journal and answers a plain page.
    func refuse(_ request: Request, _ status: HTTPResponse.Status, headline: String, detail: String, journal: String)
        -> Response
    {
        JournalNote.current?.explain(journal)
        return page(request, status: status, ["headline": headline, "paragraphs": [detail]])
    }

    /// Counts one request for an account mail against every budget it meets; nil when within them all,
    /// otherwise the 429 page with `Retry-After` (issue 39, findings 3 and 5):
    /// - per client network (IPv4 address or IPv6 /64) for `action`: `perNetwork` an hour;
    /// - per IPv6 /48, across actions: `limits.account_mail_per_ipv6_48`;
    /// - per (address, client network): `perAddressPerNetwork`. Keyed on the network too, so a stranger spends
    ///   only their own budget for an address, never the owner's;
    /// - per recipient, across actions and networks: `limits.account_mail_per_recipient`, so nobody can flood
    ///   an inbox from many networks. Networks the account logged in from (``AccountSlowdown``) are not counted,
    ///   so the owner at home or at work can always ask for their own link.
    func throttle(
        _ action: String, recipient: String?, ip: String?, perAddressPerNetwork: Int, perNetwork: Int,
        request: Request
    ) async throws -> Response? {
        let limits = services.configuration.limits
        let limiter = RateLimiter(store: services.storage.rateLimits, clock: services.clock)
        let window = 3600
        let network = ClientNetwork.key(ip)
        var allowed = try await limiter.allow("\(action):ip:\(network)", limit: perNetwork, windowSeconds: window)
        if let wide = ClientNetwork.slash48(ip) {
            allowed =
                try await limiter.allow(
                    "account-mail:ip48:\(wide)", limit: limits.accountMailPerIPv6Slash48, windowSeconds: window)
                && allowed
        }
        if let email = recipient?.lowercased() {
            allowed =
                try await limiter.allow(
                    "\(action):acct:\(email):\(network)", limit: perAddressPerNetwork, windowSeconds: window)
                && allowed
            let owners = AccountSlowdown(limiter: limiter, limits: limits, scope: "login")
            if allowed, try await !owners.isKnown(email: email, ip: ip),
                try await !limiter.allow(
                    "account-mail:to:\(email)", limit: limits.accountMailPerRecipient, windowSeconds: window)
            {
                var response = refuse(
                    request, .tooManyRequests, headline: "You're doing that too often",
                    detail:
                        "There have been too many emails to this address in the last hour. Wait "
                        + "\(LoginThrottle.minutes(limiter.secondsLeft(windowSeconds: window))) minutes and try again.",
                    journal:
                        "\(action) throttled: more than \(limits.accountMailPerRecipient) account mails an hour to one "
                        + "address from networks it never logged in from")
                response.headers[.retryAfter] = "\(limiter.secondsLeft(windowSeconds: window))"
                return response
            }
        }
        guard !allowed else { return nil }
        let wait = limiter.secondsLeft(windowSeconds: window)
        var response = refuse(
            request, .tooManyRequests, headline: "You're doing that too often",
            detail: "Wait \(LoginThrottle.minutes(wait)) minutes and try again.",
            journal:
                "\(action) throttled: more than \(perAddressPerNetwork) an hour for one address from one network, "
                + "\(perNetwork) an hour from one network, or \(limits.accountMailPerIPv6Slash48) from one IPv6 /48"
        )
        response.headers[.retryAfter] = "\(wait)"
        return response
    }

    /// Where the flow goes back to: the dialog (or another of Gatehouse's login pages) it was started from, as
    /// ``AccountGate/safeNext(_:)`` accepts it (never another host); nil when absent or refused.
    static func next(_ raw: String?) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let next = AccountGate.safeNext(raw) else {
            JournalNote.current?.explain(
                "the account form's next page is not one of Gatehouse's own login pages: it was dropped")
            return nil
        }
        return next
    }

    /// `&next=…` for a link that already has a query (the mailed links), or "" without a `next`.
    static func nextParameter(_ next: String?) -> String {
        next.map { "&" + FormEncoding.encode([("next", $0)]) } ?? ""
    }

    /// The "Log in" link at the end of a flow: the dialog itself (it shows its own login form, then consent for its
    /// app), or `/login` going on to `next`.
    static func loginHref(_ next: String?) -> String {
        guard let next else { return PagePath.login }
        if next.hasPrefix(PagePath.Dialog.prefix) || next.hasPrefix(PagePath.Device.home)
            || next.range(of: #"^/v[0-9]+\.[0-9]+/dialog/"#, options: .regularExpression) != nil
        {
            return next
        }
        return PagePath.login + "?" + FormEncoding.encode([("next", next)])
    }

    /// The name of the app whose dialog `next` is (its `client_id`), for the mails' "to use {{appName}}".
    func appName(_ next: String?) async throws -> String? {
        guard let next, let query = next.split(separator: "?", maxSplits: 1).dropFirst().first,
            let id = FormEncoding.decode(String(query))?.first(where: { $0.0 == "client_id" })?.1, id.count <= 20
        else { return nil }
        return try await services.storage.apps.find(id: id)?.name
    }

    /// A code from a link: base62 of the length ``AccountMailer`` issues, or nil.
    static func wellFormedCode(_ raw: String?) -> String? {
        guard let raw, (20...64).contains(raw.count),
            raw.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
        else { return nil }
        return raw
    }
}
