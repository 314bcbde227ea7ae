import Foundation
import GatehouseProtocol
import Hummingbird

/// The person's apps: remove one (the app hears it through its deauthorize callback) or remove it and ask it
/// to delete their data (data-deletion callback). Deletion requests are listed with the confirmation code and
/// status URL the app answered with, or their delivery state while the outbox is still retrying.
struct AppDataPages: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    private var sessions: BrowserSessions { BrowserSessions(services: services) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/account/apps") { request, _ in try await list(request) }
        router.post("/account/apps/remove") { request, _ in try await remove(request, deleteData: false) }
        router.post("/account/apps/delete-data") { request, _ in try await remove(request, deleteData: true) }
    }

    func list(_ request: Request) async throws -> Response {
        guard let (_, user) = try await sessions.current(request) else { return PageRenderer.seeOther("/account") }
        let (csrf, cookie) = sessions.csrfToken(request)
        let storage = services.storage
        var apps: [[String: Any]] = []
        for grant in try await storage.grants.grants(userID: user.id) {
            guard let app = try await storage.apps.find(id: grant.appID) else { continue }
            apps.append(["id": app.id, "name": app.name, "csrf": csrf, "deletable": !(app.dataDeletionCallbackURL ?? "").isEmpty])
        }
        var deletions: [[String: Any]] = []
        for record in try await storage.appCallbacks.list(userID: user.id, kind: .dataDeletion) {
            let app = try await storage.apps.find(id: record.appID)
            var item: [String: Any] = [
                "id": record.id, "appName": app?.name ?? record.appID, "requested": Self.format(record.createdAt), "status": Self.status(record),
            ]
            // swift-mustache shows a section for "", so absent values are left out rather than empty.
            if let code = record.confirmationCode { item["confirmationCode"] = code }
            if let url = record.statusURL { item["statusURL"] = url }
            deletions.append(item)
        }
        var notice = ""
        switch request.uri.queryParameters.get("done") {
        case "removed": notice = "The app was removed. It can no longer use your information."
        case "deletion": notice = "The app was removed and asked to delete your data. Its answer is shown below."
        default: break
        }
        let html = pages.render("account_apps", [
            "hasApps": !apps.isEmpty, "apps": apps, "hasDeletions": !deletions.isEmpty, "deletions": deletions, "notice": notice,
        ])
        return PageRenderer.htmlResponse(status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    func remove(_ request: Request, deleteData: Bool) async throws -> Response {
        var request = request
        let body = (try? await request.collectBody(upTo: 16 * 1024)).map { String(buffer: $0) } ?? ""
        let form = FormEncoding.decode(body).map { Dictionary($0, uniquingKeysWith: { a, _ in a }) } ?? [:]
        guard sessions.csrfValid(request, formToken: form["csrf_token"]) else {
            let html = pages.render("error", ["headline": "This form has expired", "detail": "Reload the page and try again.", "hint": ""])
            return PageRenderer.htmlResponse(status: .forbidden, html: html, secureCookies: services.configuration.usesSecureCookies)
        }
        guard let (_, user) = try await sessions.current(request) else { return PageRenderer.seeOther("/account") }
        let storage = services.storage
        guard let appID = form["app_id"], appID.count <= 32, let app = try await storage.apps.find(id: appID),
              try await storage.grants.find(appID: app.id, userID: user.id) != nil
        else { return PageRenderer.seeOther("/account/apps") }
        let scoped = try await storage.users.scopedID(appID: app.id, userID: user.id)
        let now = services.clock.now()
        if deleteData, let record = try await services.outbox.enqueue(.dataDeletion, app: app, userID: user.id, scopedUserID: scoped, at: now) {
            // The first attempt runs while the person waits, so the confirmation code is usually there on the next page;
            // if the app's server is down the outbox keeps retrying and the page shows that.
            _ = await services.outbox.attempt(record)
        }
        try await AppRemoval(services: services).remove(appID: app.id, userID: user.id, scopedID: scoped)
        return PageRenderer.seeOther("/account/apps?done=" + (deleteData ? "deletion" : "removed"))
    }

    static func status(_ record: AppCallbackRecord) -> String {
        if record.deliveredAt != nil {
            return record.confirmationCode != nil ? "Received by the app" : "Received by the app, which sent no confirmation code"
        }
        if record.gaveUpAt != nil { return "The app could not be reached; Gatehouse stopped trying" }
        return "Waiting for the app to answer; Gatehouse keeps trying"
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
