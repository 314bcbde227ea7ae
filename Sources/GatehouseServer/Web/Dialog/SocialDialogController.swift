import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The feed dialog (`/dialog/feed`) and the requests dialog (`/dialog/apprequests`).
///
/// Both are app-initiated pages: the person logs in if needed (the login dialog's form, told which dialog to
/// come back to), sees what the app proposes, and confirms or cancels. The result goes back to the app's
/// registered `redirect_uri` in Facebook's shapes (see `SocialDialogRequest`). Forms carry the CSRF
/// double-submit token; the dialog's query is re-validated on every step.
struct SocialDialogController: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer
    let dialogs: DialogController

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Dialog.feed)) { request, _ in try await show(.feed, request, version: nil) }
        router.get(RouterPath(PagePath.Dialog.appRequests)) { request, _ in
            try await show(.apprequests, request, version: nil)
        }
        router.post(RouterPath(PagePath.Dialog.feedPost)) { request, context in
            try await submit(.feed, request, context)
        }
        router.post(RouterPath(PagePath.Dialog.appRequestsSend)) { request, context in
            try await submit(.apprequests, request, context)
        }
    }

    // MARK: GET

    func show(_ kind: SocialDialogKind, _ request: Request, version: String?) async throws -> Response {
        if let refused = pages.dialogVersionRefusal(version) { return refused }
        let query = request.uri.query ?? ""
        let dialog: SocialDialogRequest
        switch try await SocialDialogRequest.parse(kind: kind, query: query, findApp: services.storage.apps.find(id:)) {
        case .problem(let problem):
            if let note = JournalNote.current { await dialogs.explain(problem, on: note) }
            return dialogs.problemPage(problem, request: request)
        case .invalid(let redirect, let code, let message):
            // A redirect with error_code, not an error status: the journal still says why.
            JournalNote.current?.explain(
                "the dialog was refused with error_code \(code) (\(message)) and sent back to the app")
            return Self.found(SocialDialogRequest.error(redirectURI: redirect, code: code, message: message))
        case .ok(let value): dialog = value
        }
        guard let app = try await services.storage.apps.find(id: dialog.appID) else {
            return dialogs.problemPage(.unknownApp(dialog.appID), request: request)
        }
        guard let (_, user) = try await dialogs.sessions.current(request) else {
            let failed = DialogReturn.showsLoginError(query)
            return try await dialogs.loginPage(
                back: DialogReturn(kind: kind, rawQuery: query), app: app, request: request, email: nil,
                error: failed ? DialogController.wrongPasswordMessage : nil)
        }
        switch kind {
        case .feed:
            return try await feedPage(dialog, app: app, user: user, request: request, message: "", error: nil)
        case .apprequests:
            let friends = try await friendList(of: user, appID: app.id)
            let unknown = dialog.to.filter { id in !friends.contains { $0.scopedID == id } }
            if !unknown.isEmpty {
                return Self.found(
                    SocialDialogRequest.error(
                        redirectURI: dialog.redirectURI, code: 100,
                        message: "to: \(unknown.joined(separator: ",")) is not a friend of the sender"))
            }
            return try await requestsPage(
                dialog, app: app, user: user, friends: friends, chosen: Set(dialog.to), request: request, error: nil)
        }
    }

    // MARK: POST

    func submit(_ kind: SocialDialogKind, _ request: Request, _ context: GatehouseRequestContext) async throws
        -> Response
    {
        let form: FormBody
        switch await dialogs.forms.requireCSRF(request) {
        case .refused(let page): return page
        case .accepted(let body): form = body
        }
        let back = DialogReturn(kind: kind, rawQuery: form["dialog"] ?? "")
        guard
            case .ok(let dialog) = try await SocialDialogRequest.parse(
                kind: kind, query: back.query, findApp: services.storage.apps.find(id:)),
            let app = try await services.storage.apps.find(id: dialog.appID)
        else {
            return pages.errorPage(
                .badRequest, headline: "This dialog link is no longer valid",
                detail: "Go back to the app and start again.")
        }
        guard let (_, user) = try await dialogs.sessions.current(request) else {
            return PageRenderer.seeOther(back.url)
        }
        if form["action"] == "cancel" {
            services.logger.info("dialog cancelled", metadata: ["dialog": "\(kind.rawValue)", "app": "\(app.id)"])
            return PageRenderer.seeOther(dialog.cancelled)
        }
        let audience = form["audience"].flatMap(Audience.init(wireName:))
        switch kind {
        case .feed:
            return try await post(
                dialog, app: app, user: user, message: form["message"] ?? "", audience: audience, request: request)
        case .apprequests:
            return try await send(
                dialog, app: app, user: user, chosen: form.all("to"), request: request)
        }
    }

    private func post(
        _ dialog: SocialDialogRequest, app: AppRecord, user: UserRecord, message: String, audience: Audience?,
        request: Request
    ) async throws -> Response {
        let content: FeedEndpoints.PostContent
        do {
            content = try FeedEndpoints.validate(
                .init(
                    message: message, link: dialog.link, name: dialog.name, caption: dialog.caption,
                    description: dialog.description,
                    picture: dialog.picture))
        } catch {
            return try await feedPage(
                dialog, app: app, user: user, request: request, message: message, error: "Write something to post.")
        }
        let grant = try await services.storage.grants.find(appID: app.id, userID: user.id)
        let record = PostRecord(
            id: services.random.numericID(digits: 16), appID: app.id, authorID: user.id, message: content.message,
            link: content.link,
            name: content.name, caption: content.caption, description: content.description, picture: content.picture,
            audience: audience ?? grant?.defaultAudience ?? .friends, createdAt: services.clock.now())
        try await services.storage.posts.insert(record)
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        services.logger.info(
            "post published",
            metadata: ["app": "\(app.id)", "via": "feed dialog", "audience": "\(record.audience.rawValue)"])
        return PageRenderer.seeOther(dialog.posted(postID: "\(scoped)_\(record.id)"))
    }

    private func send(
        _ dialog: SocialDialogRequest, app: AppRecord, user: UserRecord, chosen: [String], request: Request
    ) async throws -> Response {
        let friends = try await friendList(of: user, appID: app.id)
        // Only friends on offer count: with `to`, exactly those; without, any friend.
        let offered = dialog.to.isEmpty ? friends : friends.filter { dialog.to.contains($0.scopedID) }
        var recipients: [Friend] = []
        for id in chosen where !recipients.contains(where: { $0.scopedID == id }) {
            if let friend = offered.first(where: { $0.scopedID == id }) { recipients.append(friend) }
        }
        guard !recipients.isEmpty, recipients.count <= SocialDialogRequest.maxRecipients else {
            return try await requestsPage(
                dialog, app: app, user: user, friends: friends, chosen: Set(chosen), request: request,
                error: recipients.isEmpty
                    ? "Choose at least one friend." : "Choose at most \(SocialDialogRequest.maxRecipients) friends.")
        }
        let requestID = services.random.numericID(digits: 16)
        let now = services.clock.now()
        try await services.storage.requests.insert(
            recipients.map {
                AppRequestRecord(
                    requestID: requestID, appID: app.id, senderID: user.id, recipientID: $0.userID,
                    message: dialog.message ?? "",
                    data: dialog.data, title: dialog.title, createdAt: now, notificationText: dialog.notificationText)
            })
        services.logger.info("app request sent", metadata: ["app": "\(app.id)", "recipients": "\(recipients.count)"])
        return PageRenderer.seeOther(dialog.sent(requestID: requestID, to: recipients.map(\.scopedID)))
    }

    // MARK: Pages

    struct Friend: Sendable { var userID: String; var scopedID: String; var name: String }

    /// The person's friends as the app sees them (app-scoped ids), in friendship order.
    private func friendList(of user: UserRecord, appID: String) async throws -> [Friend] {
        var out: [Friend] = []
        for id in try await services.storage.friendships.friends(of: user.id) {
            guard let friend = try await services.storage.users.find(id: id) else { continue }
            out.append(
                Friend(
                    userID: id, scopedID: try await services.storage.users.scopedID(appID: appID, userID: id),
                    name: friend.fullName))
        }
        return out
    }

    private func header(_ app: AppRecord, _ user: UserRecord, _ request: Request) async throws -> (
        [String: Any], Cookie?
    ) {
        let (csrf, cookie) = dialogs.sessions.csrfToken(request)
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        return (
            [
                "appName": app.name, "csrf": csrf, "userName": user.fullName,
                "userPicture": "/pictures/\(app.id)/\(scoped)?size=112",
            ], cookie
        )
    }

    private func feedPage(
        _ dialog: SocialDialogRequest, app: AppRecord, user: UserRecord, request: Request, message: String,
        error: String?
    ) async throws -> Response {
        var (values, cookie) = try await header(app, user, request)
        let grant = try await services.storage.grants.find(appID: app.id, userID: user.id)
        values["dialog"] = DialogReturn.carried(dialog.rawQuery)
        values["message"] = message
        values["error"] = error ?? ""
        values["hasAttachment"] =
            dialog.link != nil || dialog.name != nil || dialog.caption != nil || dialog.description != nil
        values["link"] = dialog.link ?? ""
        values["name"] = dialog.name ?? ""
        values["caption"] = dialog.caption ?? ""
        values["description"] = dialog.description ?? ""
        values["audiences"] = DialogController.audienceOptions(selected: grant?.defaultAudience ?? .friends)
        let html = pages.render("feed", values)
        return PageRenderer.htmlResponse(
            status: error == nil ? .ok : .badRequest, html: html,
            secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    private func requestsPage(
        _ dialog: SocialDialogRequest, app: AppRecord, user: UserRecord, friends: [Friend], chosen: Set<String>,
        request: Request, error: String?
    ) async throws -> Response {
        var (values, cookie) = try await header(app, user, request)
        let offered = dialog.to.isEmpty ? friends : friends.filter { dialog.to.contains($0.scopedID) }
        values["dialog"] = DialogReturn.carried(dialog.rawQuery)
        values["message"] = dialog.message ?? ""
        values["title"] = dialog.title ?? ""
        values["error"] = error ?? ""
        values["hasFriends"] = !offered.isEmpty
        values["friends"] = offered.map {
            ["id": $0.scopedID, "name": $0.name, "checked": chosen.contains($0.scopedID)] as [String: Any]
        }
        let html = pages.render("apprequests", values)
        return PageRenderer.htmlResponse(
            status: error == nil ? .ok : .badRequest, html: html,
            secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    static func found(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        PageRenderer.applySecurityHeaders(to: &headers)
        return Response(status: .found, headers: headers)
    }
}
