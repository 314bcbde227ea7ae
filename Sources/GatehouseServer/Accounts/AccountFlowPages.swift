import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// What sign-up, confirmation and password reset share: the form reading, CSRF, the throttle and the pages.
struct AccountFlowPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    var secure: Bool { services.configuration.usesSecureCookies }
    var mailer: AccountMailer { AccountMailer(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        let signUp = SignUpFlow(flow: self)
        router.get("/account/signup") { request, _ in try await signUp.form(request) }
        router.post("/account/signup") { request, context in try await signUp.submit(request, context) }
        router.get("/account/confirm") { request, _ in try await signUp.confirmPage(request) }
        router.post("/account/confirm") { request, _ in try await signUp.confirm(request) }
        router.post("/account/confirm/resend") { request, context in try await signUp.resend(request, context) }
        let recovery = PasswordRecoveryFlow(flow: self)
        router.get("/account/recover") { request, _ in try await recovery.form(request) }
        router.post("/account/recover") { request, context in try await recovery.submit(request, context) }
        router.get("/account/reset") { request, _ in try await recovery.resetPage(request) }
        router.post("/account/reset") { request, context in try await recovery.reset(request, context) }
    }

    /// The form's fields, or nil when the body is too large or not form data.
    func readForm(_ request: Request) async -> [String: String]? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: services.configuration.maxBodyBytes),
              let pairs = FormEncoding.decode(String(buffer: buffer))
        else { return nil }
        return Dictionary(pairs, uniquingKeysWith: { a, _ in a })
    }

    /// A page of the `account-flow` template with a fresh CSRF token.
    func page(_ request: Request, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        var values = values
        values["csrf"] = csrf
        values["serviceName"] = services.configuration.mail.serviceName
        return PageRenderer.htmlResponse(
            status: status, html: pages.render(values["template"] as? String ?? "account-flow", values), secureCookies: secure,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// Every refusal says why in the journal and answers a plain page.
    func refuse(_ request: Request, _ status: HTTPResponse.Status, headline: String, detail: String, journal: String) -> Response {
        JournalNote.current?.explain(journal)
        return page(request, status: status, ["headline": headline, "paragraphs": [detail]])
    }

    func expiredForm(_ request: Request) -> Response {
        refuse(request, .forbidden, headline: "This form has expired",
               detail: "For your security the form could not be accepted. Go back, reload the page and try again.",
               journal: "the form's CSRF token was missing or did not match the gh_csrf cookie")
    }

    /// Counts one use of `action` against the client network's budget and (when given) the address's; nil when
    /// within budget, otherwise the 429 page with `Retry-After`.
    func throttle(_ action: String, email: String?, ip: String?, perAddress: Int, perNetwork: Int, request: Request) async throws -> Response? {
        let limiter = RateLimiter(store: services.storage.rateLimits, clock: services.clock)
        let window = 3600
        var allowed = try await limiter.allow("\(action):ip:\(ClientNetwork.key(ip))", limit: perNetwork, windowSeconds: window)
        if let email {
            allowed = try await limiter.allow("\(action):acct:\(email)", limit: perAddress, windowSeconds: window) && allowed
        }
        guard !allowed else { return nil }
        let wait = limiter.secondsLeft(windowSeconds: window)
        var response = refuse(
            request, .tooManyRequests, headline: "You're doing that too often",
            detail: "Wait \(LoginThrottle.minutes(wait)) minutes and try again.",
            journal: "\(action) throttled: more than \(perAddress) an hour for one address or \(perNetwork) an hour from one network")
        response.headers[.retryAfter] = "\(wait)"
        return response
    }

    /// A code from a link: base62 of the length ``AccountMailer`` issues, or nil.
    static func wellFormedCode(_ raw: String?) -> String? {
        guard let raw, (20...64).contains(raw.count), raw.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
        else { return nil }
        return raw
    }
}
