import GatehouseCore
import Foundation
import Hummingbird

/// "Forgotten password?" (`/account/recover`) and the mailed reset link (`/account/reset`).
///
/// The request for a link answers the same page, with the same status, whether the address has an account or
/// not, and does the same work either way: one code stored and one mail queued (to an unknown address, a mail
/// saying there is no account; its code can reset nothing). Requests are throttled per address and per client
/// network. A completed reset goes through ``AccountService/changePassword(of:to:at:)``: `passwordChangedAt`
/// moves, every browser session ends and every token answers 190/460, on every node.
struct PasswordRecoveryFlow: Sendable {
    let flow: AccountFlowPages
    var services: GatehouseServices { flow.services }

    /// Reset links one client network may ask for one address an hour: a stranger's requests spend only their own
    /// network's budget. The other budgets are the configuration's
    /// (``AccountFlowPages/throttle(_:recipient:ip:perAddressPerNetwork:perNetwork:request:)``).
    static let perAddressPerNetworkPerHour = 5

    func form(_ request: Request) async throws -> Response {
        flow.page(
            request,
            [
                "next": AccountFlowPages.next(request.uri.queryParameters.get("next")) ?? "",
                "headline": "Find your account",
                "paragraphs": ["Enter your email address to get a link to reset your password."],
                "formAction": PagePath.Account.recover, "emailField": true, "buttonTitle": "Send link",
                "buttonID": "send-reset",
            ])
    }

    func submit(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await flow.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        // The dialog the person came from (validated: only Gatehouse's own login pages), carried to the mailed link.
        let next = AccountFlowPages.next(form["next"])
        guard let email = EmailAddress.normalised(form["email"] ?? "") else {
            JournalNote.current?.explain("the reset form's email is not an email address")
            return flow.page(
                request, status: .badRequest,
                [
                    "next": next ?? "",
                    "headline": "Find your account", "error": SignUpForm.emailMessage,
                    "formAction": PagePath.Account.recover,
                    "emailField": true,
                    "buttonTitle": "Send link", "buttonID": "send-reset",
                ])
        }
        if let refused = try await flow.throttle(
            "reset", recipient: email, ip: context.client.ip, perAddressPerNetwork: Self.perAddressPerNetworkPerHour,
            perNetwork: services.configuration.limits.accountMailPerNetwork, request: request)
        {
            return refused
        }
        let mailer = flow.mailer
        let user = try await services.storage.users.find(email: email)
        // The same two writes either way; only the mail's words differ, and only its addressee reads them.
        let code = try await mailer.issueCode(.resetPassword, userID: user?.id, email: email)
        let appName = try await flow.appName(next)
        if let user {
            JournalNote.current?.identify(personID: user.id, personName: user.fullName)
            JournalNote.current?.explain("a reset link was mailed to \(user.fullName)")
            try await mailer.send(
                kind: "reset_password", userID: user.id, to: user.email,
                subject: "Reset your \(services.configuration.mail.serviceName) password",
                values: [
                    "firstName": user.firstName,
                    "link": mailer.link(PagePath.Account.reset + "?c=\(code)" + AccountFlowPages.nextParameter(next)),
                    "expiresMinutes": Int(AccountMailer.lifetime(.resetPassword) / 60), "appName": appName ?? "",
                ])
        } else {
            JournalNote.current?.explain(
                "no account has this address: answered as if it had, and the address was told by mail")
            try await mailer.send(
                kind: "no_account", userID: nil, to: email, subject: "Password reset request",
                values: ["action": "reset a password", "exists": false, "appName": appName ?? ""])
        }
        return flow.page(
            request,
            [
                "next": next ?? "",
                "headline": "Check your email",
                "paragraphs": [
                    "If \(email) has an account, we sent it a link to reset the password. The link expires in an hour."
                ],
                "developerNote": services.configuration.isDevelopment
                    ? "Development mode: the message is on /console/mail." : "",
                "loginLink": true,
            ])
    }

    /// `GET /account/reset?c=…`: the new-password form, when the link can still be used.
    func resetPage(_ request: Request) async throws -> Response {
        guard let code = AccountFlowPages.wellFormedCode(request.uri.queryParameters.get("c")),
            try await usable(code) != nil
        else {
            return invalidLink(request)
        }
        return newPasswordPage(
            request, code: code, next: AccountFlowPages.next(request.uri.queryParameters.get("next")), error: nil)
    }

    private func newPasswordPage(_ request: Request, code: String, next: String?, error: String?) -> Response {
        flow.page(
            request, status: error == nil ? .ok : .badRequest,
            [
                "next": next ?? "",
                "headline": "Choose a new password", "error": error ?? "", "formAction": PagePath.Account.reset,
                "code": code,
                "passwordField": true, "buttonTitle": "Continue", "buttonID": "reset-password",
            ])
    }

    /// The person a code could reset, without using it: only while the account still has the address the link
    /// was sent to (a link outlives no change of address, issue 39 finding 8).
    private func usable(_ code: String) async throws -> UserRecord? {
        guard let codes = services.storage.accountCodes,
            let record = try await codes.find(codeHash: SecretHash.sha256Hex(code)),
            record.purpose == .resetPassword, record.usedAt == nil, record.expiresAt > services.clock.now(),
            let userID = record.userID, let user = try await services.storage.users.find(id: userID),
            AccountMailer.sameAddress(record.email, user.email)
        else { return nil }
        return user
    }

    /// `POST /account/reset`: checks the new password, uses the code once, and changes the password.
    func reset(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await flow.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let code = AccountFlowPages.wellFormedCode(form["c"]), let user = try await usable(code) else {
            return invalidLink(request)
        }
        let next = AccountFlowPages.next(form["next"])
        let password = form["password"] ?? ""
        guard password.count >= 6, password.utf8.count <= 1024, !password.trimmingCharacters(in: .whitespaces).isEmpty
        else {
            JournalNote.current?.explain("the new password was refused: fewer than 6 characters")
            return newPasswordPage(request, code: code, next: next, error: SignUpForm.passwordMessage)
        }
        let now = services.clock.now()
        guard let codes = services.storage.accountCodes,
            try await codes.consume(codeHash: SecretHash.sha256Hex(code), purpose: .resetPassword, at: now) != nil
        else { return invalidLink(request) }
        JournalNote.current?.identify(personID: user.id, personName: user.fullName)
        let changed = try await services.accounts.changePassword(of: user, to: password, at: now, event: .passwordReset)
        try await codes.expireAll(userID: user.id, purpose: .resetPassword, at: now)
        // Proving the mailbox also confirms an unconfirmed account.
        if changed.accountState == .unconfirmed {
            try await services.accounts.setAccountState(of: changed, to: .active, at: now)
        }
        // The owner hears of it, wherever the reset was done from (issue 39, finding 6).
        try await flow.mailer.send(
            kind: "password_changed", userID: user.id, to: changed.email,
            subject: "Your \(services.configuration.mail.serviceName) password was changed",
            values: ["firstName": changed.firstName, "link": flow.mailer.link(PagePath.Account.recover)])
        JournalNote.current?.explain(
            "\(user.fullName) reset their password: every session ended and every token answers 190/460")
        return flow.page(
            request,
            [
                "headline": "Your password has been changed",
                "paragraphs": ["You've been logged out everywhere. Log in with your new password."],
                "loginLink": true, "next": next ?? "",
            ])
    }

    private func invalidLink(_ request: Request) -> Response {
        flow.refuse(
            request, .gone, headline: "This link has expired",
            detail: "Reset links work once and expire after an hour. Ask for a new one from the login page.",
            journal: "the reset link was malformed, already used, expired, or not for an account")
    }
}
