import Foundation
import GatehouseProtocol

/// The app-initiated dialogs besides login: the feed dialog and the requests dialog.
package enum SocialDialogKind: String, Sendable, CaseIterable {
    /// `/dialog/feed`: the person writes a post with the app's link attached and confirms it.
    case feed
    /// `/dialog/apprequests`: the person sends the app's request to friends.
    case apprequests
}

/// A validated `/dialog/feed` or `/dialog/apprequests` request. Pure: no I/O beyond finding the app.
///
/// Like the login dialog's, the raw query travels through the forms and is validated again on every step.
package struct SocialDialogRequest: Sendable, Equatable {
    package var kind: SocialDialogKind
    package var appID: String
    package var redirectURI: String
    /// Feed: the attachment the app offers (`link`, `picture`, `name`, `caption`, `description`). The message
    /// is the person's to write: Facebook ignored an app's `message` here (Platform Policy), and so does Gatehouse.
    package var link, picture, name, caption, description: String?
    /// Requests: the app's `message` (required), `title`, and `data` returned to the app untouched.
    package var message, title, data: String?
    /// Requests: `notification_text`, what the recipients' notification says (seed 002 sends "Check this out").
    package var notificationText: String?
    /// Requests: app-scoped ids from `to`; empty means the person picks friends.
    package var to: [String]
    package var rawQuery: String

    /// What the dialog does with a request.
    package enum Parsed: Sendable, Equatable {
        case ok(SocialDialogRequest)
        /// App or redirect unusable: an error page, never a redirect.
        case problem(DialogRequest.Problem)
        /// The app and redirect are fine but a parameter is not: redirect with `error_code`/`error_message`.
        case invalid(redirectURI: String, code: Int, message: String)

        /// Whether the dialog can go on.
        package var isUsable: Bool {
            if case .ok = self { return true }
            return false
        }
    }

    package static let maxRecipients = 50

    /// Parses a dialog query. `app_id` is the dialogs' name for the app; `client_id` is accepted too.
    package static func parse(
        kind: SocialDialogKind, query: String, findApp: (String) async throws -> AppRecord?
    ) async throws -> Parsed {
        guard let pairs = FormEncoding.decode(query) else { return .problem(.malformedQuery) }
        var params: [String: String] = [:]
        for (k, v) in pairs where params[k] == nil { params[k] = v }
        func value(_ key: String) -> String? {
            guard let v = params[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty else { return nil }
            return v
        }
        guard let appID = value("app_id") ?? value("client_id") else { return .problem(.missingClientID) }
        guard appID.count <= 32, appID.allSatisfy(\.isNumber), let app = try await findApp(appID) else {
            return .problem(.unknownApp(String(appID.prefix(32))))
        }
        guard let redirect = params["redirect_uri"], !redirect.isEmpty else { return .problem(.missingRedirectURI) }
        guard RedirectURIPolicy.isAllowed(redirect, for: app) else {
            return .problem(.redirectURINotAllowed(appID: app.id, uri: String(redirect.prefix(512))))
        }
        var request = SocialDialogRequest(kind: kind, appID: app.id, redirectURI: redirect, to: [], rawQuery: query)
        func invalid(_ message: String, code: Int = 100) -> Parsed {
            .invalid(redirectURI: redirect, code: code, message: message)
        }
        switch kind {
        case .feed:
            request.link = value("link")
            request.picture = value("picture")
            request.name = value("name")
            request.caption = value("caption")
            request.description = value("description")
            if let link = request.link, !WebURL.isWebURL(link) { return invalid("link URL is not properly formatted") }
            if let picture = request.picture, !WebURL.isWebURL(picture) {
                return invalid("picture URL is not properly formatted")
            }
            for (key, v) in [
                ("name", request.name), ("caption", request.caption), ("description", request.description),
            ] where (v?.count ?? 0) > 1000 {
                return invalid("\(key) is too long (1000 characters at most)")
            }
            if value("to") != nil {
                return invalid("Feed story publishing to other users is disabled for this application", code: 200)
            }
        case .apprequests:
            guard let message = value("message") else { return invalid("The parameter message is required") }
            guard message.count <= 1000 else { return invalid("message is too long (1000 characters at most)") }
            request.message = message
            if let text = value("notification_text") {
                guard text.count <= 1000 else {
                    return invalid("notification_text is too long (1000 characters at most)")
                }
                request.notificationText = text
            }
            request.title = value("title").map { String($0.prefix(50)) }
            request.data = params["data"].flatMap { $0.isEmpty ? nil : $0 }
            if let data = request.data, data.count > 255 { return invalid("data is too long (255 characters at most)") }
            if let to = value("to") {
                let ids = Permission.parseScope(to)
                guard ids.allSatisfy({ $0.count <= 20 && $0.allSatisfy(\.isNumber) }) else {
                    return invalid("to must be a comma-separated list of user ids")
                }
                guard ids.count <= maxRecipients else {
                    return invalid("A request can go to at most \(maxRecipients) people")
                }
                request.to = ids
            }
        }
        return .ok(request)
    }

    // MARK: Redirects (Facebook's shapes: query parameters, then `#_=_`)

    /// The feed dialog's success: `?post_id={author}_{post}`.
    package func posted(postID: String) -> String {
        DialogRedirect.url(redirectURI: redirectURI, parameters: [("post_id", postID)], inFragment: false)
    }

    /// The requests dialog's success: `?request={id}&to[0]=…&to[1]=…`.
    package func sent(requestID: String, to recipients: [String]) -> String {
        var params = [("request", requestID)]
        for (i, id) in recipients.enumerated() { params.append(("to[\(i)]", id)) }
        return DialogRedirect.url(redirectURI: redirectURI, parameters: params, inFragment: false)
    }

    /// The person pressed Cancel: Facebook's `error_code=4201`.
    package var cancelled: String {
        Self.error(redirectURI: redirectURI, code: 4201, message: "User canceled the Dialog flow")
    }

    /// Any dialog error sent back to the app.
    package static func error(redirectURI: String, code: Int, message: String) -> String {
        DialogRedirect.url(
            redirectURI: redirectURI, parameters: [("error_code", String(code)), ("error_message", message)],
            inFragment: false)
    }
}
