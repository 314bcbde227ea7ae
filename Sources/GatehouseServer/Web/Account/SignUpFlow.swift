import GatehouseCore
import Foundation
import Hummingbird

/// "Create new account" (`/account/signup`) and the email confirmation it mails (`/account/confirm`).
///
/// Who may sign up is the ``SignUpMode`` in force. A new account is ``AccountState/unconfirmed`` (its tokens
/// answer 190/464 and a login meets the confirm page, ``AccountGate``) until the mailed link is used. An address
/// that already has an account gets the same answer and the same amount of work (one mail, to that address,
/// saying so), so the form tells nobody which addresses have accounts.
struct SignUpFlow: Sendable {
    let flow: AccountFlowPages
    var services: GatehouseServices { flow.services }

    /// Sign-ups a client network may make an hour (an address may only be signed up once anyway).
    static let perNetworkPerHour = 20

    func mode() async throws -> SignUpMode {
        SignUpMode.effective(
            configured: services.configuration.signUp,
            stored: try await services.storage.emulator.setting(SignUpMode.settingName),
            mode: services.configuration.mode)
    }

    func form(_ request: Request) async throws -> Response {
        let invitation = request.uri.queryParameters.get("invitation")
        let next = AccountFlowPages.next(request.uri.queryParameters.get("next"))
        switch try await mode() {
        case .closed: return closed(request)
        case .invitation where AccountFlowPages.wellFormedCode(invitation) == nil: return needsInvitation(request)
        default: return formPage(request, values: ["invitation": invitation ?? "", "next": next ?? ""])
        }
    }

    private func formPage(_ request: Request, status: HTTPResponse.Status = .ok, values: [String: Any]) -> Response {
        var values = values
        values["template"] = "signup"
        values["months"] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            .enumerated().map { index, name in
                ["value": index + 1, "name": name, "selected": "\(index + 1)" == (values["birthday_month"] as? String)]
                    as [String: Any]
            }
        return flow.page(request, status: status, values)
    }

    private func closed(_ request: Request) -> Response {
        flow.refuse(
            request, .forbidden, headline: "Sign-up is closed",
            detail: "New accounts can't be created here. Ask the administrator for an account.",
            journal: "sign-up is closed (the signup setting, the console or PUT /admin/api/v1/signup)")
    }

    private func needsInvitation(_ request: Request) -> Response {
        flow.refuse(
            request, .forbidden, headline: "Sign-up is by invitation",
            detail: "Use the link in your invitation to create an account.",
            journal: "sign-up is by invitation and the request carried no valid invitation")
    }

    func submit(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await flow.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let mode = try await mode()
        if mode == .closed { return closed(request) }
        // The dialog the person came from (validated: only Gatehouse's own login pages), carried to the mailed link.
        let next = AccountFlowPages.next(form["next"])
        let parsed = SignUpForm.parse(form.fields, today: services.clock.now())
        guard case .success(let signUp) = parsed else {
            guard case .failure(let problems) = parsed else { return closed(request) }
            JournalNote.current?.explain(
                "the sign-up form was refused: " + problems.byField.keys.sorted().joined(separator: ", ") + " not valid"
            )
            var values: [String: Any] = [
                "invitation": form["invitation"] ?? "", "next": next ?? "", "error": "Check the fields marked below.",
            ]
            for key in ["firstname", "lastname", "email", "birthday_day", "birthday_month", "birthday_year"] {
                values[key] = form[key] ?? ""
            }
            for (field, message) in problems.byField { values["\(field)Error"] = message }
            return formPage(request, status: .badRequest, values: values)
        }
        if let refused = try await flow.throttle(
            "signup", recipient: signUp.email, ip: context.client.ip,
            perAddressPerNetwork: PasswordRecoveryFlow.perAddressPerNetworkPerHour, perNetwork: Self.perNetworkPerHour,
            request: request)
        {
            return refused
        }
        if mode == .invitation {
            guard let code = AccountFlowPages.wellFormedCode(form["invitation"]),
                let codes = services.storage.accountCodes,
                let invitation = try await codes.find(codeHash: SecretHash.sha256Hex(code)),
                invitation.purpose == .invitation,
                invitation.email == signUp.email,
                try await codes.consume(codeHash: invitation.codeHash, purpose: .invitation, at: services.clock.now())
                    != nil
            else {
                return flow.refuse(
                    request, .forbidden, headline: "This invitation isn't valid",
                    detail: "It was already used, has expired, or was sent to another address.",
                    journal:
                        "sign-up by invitation refused: the invitation was used, expired, or sent to another address")
            }
        }
        let mailer = flow.mailer
        if let existing = try await services.storage.users.find(email: signUp.email) {
            // Same answer, same work (the password is hashed as for a new account, then dropped): one mail, to
            // the address's owner.
            _ = try await services.passwords.hash(signUp.password)
            JournalNote.current?.explain(
                "sign-up with an address that already has an account: answered as a new sign-up; the owner is told by mail"
            )
            try await mailer.send(
                kind: "no_account", userID: existing.id, to: existing.email,
                subject: "Someone tried to sign up with your email",
                values: ["action": "create an account", "exists": true])
            return checkEmail(request, email: signUp.email, next: next)
        }
        let user = UserRecord(
            id: services.random.numericID(digits: 15), email: signUp.email,
            passwordHash: try await services.passwords.hash(signUp.password),
            firstName: signUp.firstName, lastName: signUp.lastName, birthday: signUp.birthday,
            createdAt: services.clock.now(),
            accountState: .unconfirmed)
        do {
            try await services.storage.users.create(user)
        } catch StorageError.conflict {
            // A race with another sign-up for the same address: the same answer again.
            return checkEmail(request, email: signUp.email, next: next)
        }
        JournalNote.current?.identify(personID: user.id, personName: user.fullName)
        try await sendConfirmation(to: user, next: next)
        JournalNote.current?.explain(
            "\(user.fullName) signed up; the account is unconfirmed (tokens answer 190/464) until the mailed link is used"
        )
        return checkEmail(request, email: signUp.email, next: next)
    }

    /// Mails a fresh confirmation link to `user` (sign-up, and "send it again"); the link carries `next` (the
    /// dialog the sign-up started from, already validated), and the mail names that dialog's app.
    func sendConfirmation(to user: UserRecord, next: String?) async throws {
        let mailer = flow.mailer
        let code = try await mailer.issueCode(.confirmEmail, userID: user.id, email: user.email)
        var values: [String: Any] = [
            "firstName": user.firstName,
            "link": mailer.link(PagePath.Account.confirm + "?c=\(code)" + AccountFlowPages.nextParameter(next)),
            "expiresMinutes": Int(AccountMailer.lifetime(.confirmEmail) / 60),
        ]
        if let app = try await flow.appName(next) { values["appName"] = app }
        try await mailer.send(
            kind: "confirm_email", userID: user.id, to: user.email,
            subject: "Confirm your \(services.configuration.mail.serviceName) account", values: values)
    }

    /// `POST /account/confirm/resend`: from the unconfirmed person's confirm page (``AccountGate``), a fresh link;
    /// throttled per address and network like reset links.
    func resend(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let form: FormBody
        switch await flow.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        // The person who was just shown "Confirm your email" after their password (``AccountGate``'s challenge).
        guard let user = try await AccountGate(services: services, pages: flow.pages).pendingPerson(request),
            user.accountState == .unconfirmed
        else {
            return flow.refuse(
                request, .forbidden, headline: "Log in first",
                detail: "Log in with the account you want to confirm, then ask for the email again.",
                journal: "no unconfirmed person is logged in in this browser: nothing to send")
        }
        if let refused = try await flow.throttle(
            "confirm", recipient: user.email, ip: context.client.ip,
            perAddressPerNetwork: PasswordRecoveryFlow.perAddressPerNetworkPerHour,
            perNetwork: services.configuration.limits.accountMailPerNetwork, request: request)
        {
            return refused
        }
        JournalNote.current?.identify(personID: user.id, personName: user.fullName)
        let next = AccountFlowPages.next(form["next"])
        try await sendConfirmation(to: user, next: next)
        JournalNote.current?.explain("a new confirmation link was mailed to \(user.fullName)")
        return checkEmail(request, email: user.email, next: next)
    }

    private func checkEmail(_ request: Request, email: String, next: String?) -> Response {
        flow.page(
            request,
            [
                "next": next ?? "",
                "headline": "Check your email",
                "paragraphs": [
                    "We sent a message to \(email). Use the link in it to confirm your account, then log in."
                ],
                "developerNote": services.configuration.isDevelopment
                    ? "Development mode: the message is on /console/mail." : "",
                "loginLink": true,
            ])
    }

    /// `GET /account/confirm?c=…`: a button, so a mail scanner that fetches the link does not use it up.
    func confirmPage(_ request: Request) async throws -> Response {
        guard let code = AccountFlowPages.wellFormedCode(request.uri.queryParameters.get("c")) else {
            return invalidLink(request)
        }
        return flow.page(
            request,
            [
                "next": AccountFlowPages.next(request.uri.queryParameters.get("next")) ?? "",
                "headline": "Confirm your account", "paragraphs": ["Press Confirm to finish creating your account."],
                "formAction": PagePath.Account.confirm, "code": code, "buttonTitle": "Confirm", "buttonID": "confirm",
            ])
    }

    /// `POST /account/confirm`: uses the code once and makes the account active.
    func confirm(_ request: Request) async throws -> Response {
        let form: FormBody
        switch await flow.forms.requireCSRF(request, ifUnreadable: .expired) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        guard let code = AccountFlowPages.wellFormedCode(form["c"]), let codes = services.storage.accountCodes,
            let used = try await codes.consume(
                codeHash: SecretHash.sha256Hex(code), purpose: .confirmEmail, at: services.clock.now()),
            let userID = used.userID, let user = try await services.storage.users.find(id: userID),
            // A confirmation proves the address it was sent to, not one the account has since moved to.
            AccountMailer.sameAddress(used.email, user.email)
        else { return invalidLink(request) }
        let next = AccountFlowPages.next(form["next"])
        JournalNote.current?.identify(personID: user.id, personName: user.fullName)
        if user.accountState == .unconfirmed {
            try await services.accounts.setAccountState(of: user, to: .active)
            JournalNote.current?.explain("\(user.fullName) confirmed their email; the account is active")
        }
        return flow.page(
            request,
            [
                "headline": "Your account is confirmed",
                "paragraphs": ["Thanks, \(user.firstName). You can log in now."], "loginLink": true,
                "next": next ?? "",
            ])
    }

    private func invalidLink(_ request: Request) -> Response {
        flow.refuse(
            request, .gone, headline: "This link has expired",
            detail:
                "Confirmation links work once and expire after 7 days. Log in and choose Send the email again for a new one.",
            journal: "the confirmation link was malformed, already used, or expired")
    }
}
