import GatehouseCore
import Foundation
import Hummingbird
import GatehouseProtocol

/// `/console/mail` (issue 32): the mail outbox, as Mailpit shows an SMTP inbox. Each message's plain-text part is
/// shown with its links clickable (the HTML part is not rendered: the console runs no mail-supplied markup);
/// the sign-up mode is set here too, and invitations (for sign-up by invitation) are sent from here.
struct ConsoleMail: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.mail)) { request, _ in try await page(request) }
        router.post(RouterPath(PagePath.Console.mailDelete)) { request, _ in
            try await console.action(request) { form in
                if let id = form["id"], !id.isEmpty {
                    _ = try await services.storage.mail?.delete(id: id)
                } else {
                    try await services.storage.mail?.deleteAll()
                }
                return PagePath.notice(PagePath.Console.mail, "cleared")
            }
        }
        router.post(RouterPath(PagePath.Console.mailSignUp)) { request, _ in
            try await console.action(request) { form in
                guard let mode = form["mode"].flatMap(SignUpMode.init(rawValue:)) else {
                    throw ConsoleInputError("Choose open, invitation or closed.")
                }
                try await services.storage.emulator.setSetting(SignUpMode.settingName, mode.rawValue)
                return PagePath.notice(PagePath.Console.mail, "saved")
            }
        }
        router.post(RouterPath(PagePath.Console.mailInvite)) { request, _ in
            try await console.action(request) { form in
                guard let email = form["email"].flatMap(EmailAddress.normalised) else {
                    throw ConsoleInputError("Enter the email address to invite.")
                }
                _ = try await AccountMailer(services: services, pages: console.pages).invite(email)
                return PagePath.notice(PagePath.Console.mail, "invited")
            }
        }
    }

    func page(_ request: Request) async throws -> Response {
        try await console.page(request, "console-mail", title: "Mail", nav: "mail") {
            let mode = SignUpMode.effective(
                configured: services.configuration.signUp,
                stored: try await services.storage.emulator.setting(SignUpMode.settingName),
                mode: services.configuration.mode)
            let messages = try await services.storage.mail?.list(to: nil, limit: 200) ?? []
            return [
                "messages": messages.map { message -> [String: Any] in
                    let rendered = V1Mail.render(message)
                    return [
                        "id": message.id, "to": message.to, "subject": message.subject, "kind": message.kind,
                        "text": message.text,
                        "time": ConsoleController.timestamp(message.createdAt),
                        "status": rendered["status"]?.stringValue ?? "",
                        "lastError": message.lastError ?? "",
                        "links": (rendered["links"]?.arrayValue ?? []).compactMap(\.stringValue),
                    ]
                },
                "modes": SignUpMode.allCases.map { ["value": $0.rawValue, "selected": $0 == mode] as [String: Any] },
                "sends": services.mail?.sends ?? false,
            ]
        }
    }
}
