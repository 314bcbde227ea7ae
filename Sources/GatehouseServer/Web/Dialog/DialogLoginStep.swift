import GatehouseCore
import GatehouseProtocol
import Hummingbird
import Logging

/// `POST /dialog/oauth/login`: the password form of the login dialog, and of the feed and requests dialogs.
extension DialogController {
    func login(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await forms.requireCSRF(request) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        // The feed and requests dialogs share this login form; `kind` says which dialog to return to.
        let back = DialogReturn(kind: SocialDialogKind(rawValue: form["kind"] ?? ""), rawQuery: form["dialog"] ?? "")
        guard try await isStillUsable(back) else { return pages.loginLinkExpiredPage() }
        let email = String((form["email"] ?? "").prefix(320)), password = form["password"] ?? ""
        switch try await PasswordCheck.people(services).person(email: email, password: password, ip: context.client.ip)
        {
        case .throttled(let seconds, let minutes):
            let wait = "\(minutes) minute\(minutes == 1 ? "" : "s")"
            JournalNote.current?.explain(
                "too many failed password attempts for this account or client; try again in \(wait)"
                    + " (limits.login_attempts_per_account, _per_ip, _per_ipv6_48, _per_account_all_networks)")
            services.logger.notice("login refused", metadata: ["reason": "too many attempts"])
            services.metrics.login(.limited)
            var response = pages.errorPage(
                .tooManyRequests, headline: "Too many failed attempts.",
                detail: "For your security, wait \(wait) and try again.")
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .refused:
            JournalNote.current?.explain("the email or password was wrong; the login form is shown again")
            services.logger.info("login refused", metadata: ["reason": "bad credentials"])
            services.metrics.login(.failure)
            return PageRenderer.seeOther(back.afterWrongPassword)
        case .accepted(let person):
            JournalNote.current?.identify(personID: nil, personName: person.fullName)
            let gate = AccountGate(services: services, pages: pages)
            switch try await gate.afterPassword(person, next: back.url, request: request) {
            case .page(let response):
                return response
            case .proceed(let user):
                services.logger.info("login", metadata: ["user": "\(user.id)"])
                services.metrics.login(.success)
                return try await gate.startSession(for: user, next: back.url, request: request)
            }
        }
    }

    /// Whether the dialog the form came from can still be answered (its app and redirect URI still check out).
    private func isStillUsable(_ back: DialogReturn) async throws -> Bool {
        if let kind = back.kind {
            return try await SocialDialogRequest.parse(
                kind: kind, query: back.query, findApp: services.storage.apps.find(id:)
            ).isUsable
        }
        if case .success = try await DialogRequest.parse(query: back.query, findApp: services.storage.apps.find(id:)) {
            return true
        }
        return false
    }
}
