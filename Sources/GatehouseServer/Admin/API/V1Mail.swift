import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/mail`, `/mail/{id}`, `/signup` and `/invitations` (issue 32): the mail outbox, so a test can read the
/// confirmation or reset link a flow sent; who may sign up; and invitations for sign-up by invitation.
struct V1Mail: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/mail") { try await list($0) },
            V1Route(method: .delete, path: "/mail") { _ in try await deleteAll() },
            V1Route(method: .get, path: "/mail/{id}") { try await get($0) },
            V1Route(method: .delete, path: "/mail/{id}") { try await delete($0) },
            V1Route(method: .get, path: "/signup") { _ in try await signUp() },
            V1Route(method: .put, path: "/signup") { try await setSignUp($0) },
            V1Route(method: .post, path: "/invitations") { try await invite($0) },
        ]
    }

    private func store() throws -> any MailOutboxStore {
        guard let store = services.storage.mail else { throw Problem(.unavailable, "this storage keeps no mail") }
        return store
    }

    /// `GET /mail?to=&limit=&cursor=`: newest first.
    func list(_ call: V1Call) async throws -> Response {
        let page = try Page(call.request)
        let to = call.query("to")
        if let to, to.unicodeScalars.count > 320 { throw Problem.validation("to", "to must be at most 320 characters") }
        let messages = try await store().list(to: to.map { EmailAddress.normalised($0) ?? $0 }, limit: 10_000)
        let bodies = messages.isEmpty ? false : await call.mayReadSecrets()
        return AdminAPIv1.reply(page.answer(messages) { Self.render($0, bodies: bodies) })
    }

    func get(_ call: V1Call) async throws -> Response {
        guard let message = try await store().find(id: call.parameter("id")) else {
            throw Problem.notFound("no message with this id")
        }
        return AdminAPIv1.reply(Self.render(message, bodies: await call.mayReadSecrets()))
    }

    func delete(_ call: V1Call) async throws -> Response {
        guard try await store().delete(id: call.parameter("id")) else {
            throw Problem.notFound("no message with this id")
        }
        return AdminAPIv1.reply(nil)
    }

    func deleteAll() async throws -> Response {
        try await store().deleteAll()
        return AdminAPIv1.reply(nil)
    }

    /// One message as the API shows it; `links` are the URLs found in its plain-text part. Without `bodies` (a
    /// read-only token, ``SecretReads``) `text`, `html` and `links` are left out: they hold reset links.
    static func render(_ m: MailMessageRecord, bodies: Bool = true) -> JSONValue {
        let status =
            m.deliveredAt != nil ? "sent" : m.gaveUpAt != nil ? "failed" : m.nextAttemptAt != nil ? "queued" : "kept"
        let links = m.text.split(whereSeparator: \.isWhitespace).map(String.init).filter {
            $0.hasPrefix("http://") || $0.hasPrefix("https://")
        }
        var object: JSONObject = [
            "id": .string(m.id), "kind": .string(m.kind), "to": .string(m.to), "subject": .string(m.subject),
            "text": .string(m.text),
            "html": .string(m.html), "links": .array(links.map(JSONValue.string)),
            "person_id": AdminAPIv1.optional(m.userID),
            "status": .string(status), "attempts": .int(Int64(m.attempts)),
            "last_error": AdminAPIv1.optional(m.lastError),
            "created_time": AdminAPIv1.time(m.createdAt),
            "sent_time": m.deliveredAt.map(AdminAPIv1.time) ?? .null,
        ]
        if !bodies { for key in ["text", "html", "links"] { _ = object.removeValue(forKey: key) } }
        return .object(object)
    }

    func signUp() async throws -> Response {
        let mode = SignUpMode.effective(
            configured: services.configuration.signUp,
            stored: try await services.storage.emulator.setting(SignUpMode.settingName),
            mode: services.configuration.mode)
        return AdminAPIv1.reply(["mode": .string(mode.rawValue)])
    }

    /// `PUT /signup {mode}`: open, invitation or closed, until changed again (it overrides the `signup` setting).
    func setSignUp(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let text = try body.requiredString("mode", max: 20)
        try body.finish()
        guard let mode = SignUpMode(rawValue: text) else {
            throw Problem.validation("mode", "mode must be one of open, invitation, closed")
        }
        try await services.storage.emulator.setSetting(SignUpMode.settingName, mode.rawValue)
        return AdminAPIv1.reply(["mode": .string(mode.rawValue)])
    }

    /// `POST /invitations {email}`: mails a single-use sign-up link for that address.
    func invite(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let raw = try body.requiredString("email", max: 320)
        try body.finish()
        guard let email = EmailAddress.normalised(raw) else {
            throw Problem.validation("email", "email is not an email address")
        }
        let pages = try await PageRenderer.load(devMode: services.configuration.isDevelopment)
        let message = try await AccountMailer(services: services, pages: pages).invite(email)
        return AdminAPIv1.reply(["email": .string(email), "mail_id": .string(message.id)], status: .created)
    }
}
