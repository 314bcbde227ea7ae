import GatehouseCore
import Foundation
import Mustache

/// Issues the single-use codes the account mails carry and puts the mails in the outbox.
///
/// A code is 256 random bits (base62); only its SHA-256 is stored (``AccountCodeRecord``), so a copy of the
/// database opens no account. The mails are rendered from `mail-KIND-text` and `mail-KIND-html` (Resources), or
/// from `KIND.txt.mustache` / `KIND.html.mustache` in `mail.templates_dir` when those exist; each template sees
/// `serviceName`, `appName` (when the flow started from an app's dialog), `firstName`, `email`, `link` and
/// `expiresMinutes`.
struct AccountMailer: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    /// How long each kind of code lasts.
    static func lifetime(_ purpose: AccountCodePurpose) -> TimeInterval {
        switch purpose {
        case .confirmEmail: 7 * 86_400
        case .resetPassword: 3600
        case .invitation: 14 * 86_400
        }
    }

    /// Stores a new code's hash and returns the code.
    func issueCode(_ purpose: AccountCodePurpose, userID: String?, email: String) async throws -> String {
        guard let codes = services.storage.accountCodes else {
            throw AccountError("this storage keeps no account codes")
        }
        let code = services.random.alphanumeric(bits: 256)
        let now = services.clock.now()
        try await codes.insert(
            AccountCodeRecord(
                codeHash: SecretHash.sha256Hex(code), purpose: purpose, userID: userID, email: email, createdAt: now,
                expiresAt: now.addingTimeInterval(Self.lifetime(purpose))))
        return code
    }

    /// Renders the `kind` mail and queues it; the worker (if any) is woken. Never waits on the mail system.
    @discardableResult
    func send(kind: String, userID: String?, to: String, subject: String, values: [String: Any]) async throws
        -> MailMessageRecord
    {
        guard let outbox = services.mail else { throw AccountError("this storage keeps no mail") }
        var values = values
        values["serviceName"] = services.configuration.mail.serviceName
        values["email"] = to
        let text = render(kind, part: "text", values: values)
        let html = render(kind, part: "html", values: values)
        let message = try await outbox.enqueue(
            kind: kind, userID: userID, to: to, subject: subject, text: text, html: html)
        if outbox.sends { services.mailDoorbell.ring() }
        return message
    }

    /// Mails `email` (already normalised) a single-use sign-up link, for sign-up by invitation: the admin API's
    /// `POST /invitations` and the console's invitation form.
    func invite(_ email: String) async throws -> MailMessageRecord {
        let code = try await issueCode(.invitation, userID: nil, email: email)
        return try await send(
            kind: "invitation", userID: nil, to: email,
            subject: "You're invited to \(services.configuration.mail.serviceName)",
            values: [
                "link": link(PagePath.Account.signUp + "?invitation=\(code)"),
                "expiresMinutes": Int(Self.lifetime(.invitation) / 60),
            ])
    }

    /// Whether a code sent to `sent` may still act for an account whose address is now `current`.
    static func sameAddress(_ sent: String, _ current: String) -> Bool {
        (EmailAddress.normalised(sent) ?? sent.lowercased())
            == (EmailAddress.normalised(current) ?? current.lowercased())
    }

    /// A link to this server's `path` (the public URL, so it works from the mailbox).
    func link(_ path: String) -> String {
        let base = services.configuration.baseURL
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    }

    private func render(_ kind: String, part: String, values: [String: Any]) -> String {
        if let directory = services.configuration.mail.templatesDirectory {
            let file = (directory as NSString).appendingPathComponent(
                "\(kind).\(part == "text" ? "txt" : "html").mustache")
            if let source = try? String(contentsOfFile: file, encoding: .utf8),
                let template = try? MustacheTemplate(string: source)
            {
                return template.render(values)
            }
        }
        return pages.library.render(values, withTemplate: "mail-\(kind)-\(part)") ?? ""
    }
}
