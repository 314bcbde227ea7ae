import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// The console's "Posts & requests" page: what apps published (`/me/feed`, the feed dialog) and the app
/// requests waiting for people (the requests dialog), newest first, with their audience, and delete buttons.
struct ConsoleSocial: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }
    static let shown = 200

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.social), use: list)
        router.post(RouterPath(PagePath.Console.postDelete), use: deletePost)
        router.post(RouterPath(PagePath.Console.requestDelete), use: deleteRequest)
        router.post(RouterPath(PagePath.Console.requestAccept), use: acceptRequest)
    }

    /// `GET /console/social`: posts and requests, optionally of one app (`?app=`).
    @Sendable func list(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let app = request.uri.queryParameters.get("app").flatMap { $0.isEmpty ? nil : String($0) }
        return try await console.page(request, "console-social", title: "Posts and requests", nav: "social") {
            try await values(app: app)
        }
    }

    /// `POST /console/posts/:id/delete`: deletes a post.
    @Sendable func deletePost(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { _ in
            try await services.storage.posts.delete(id: context.parameters.get("id") ?? "")
            return PagePath.notice(PagePath.Console.social, "cleared")
        }
    }

    /// `POST /console/requests/:id/delete`: deletes one recipient's copy of an app request (form field `recipient`).
    @Sendable func deleteRequest(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            try await services.storage.requests.delete(
                requestID: context.parameters.get("id") ?? "", recipientID: form["recipient"] ?? "")
            return PagePath.notice(PagePath.Console.social, "cleared")
        }
    }

    /// `POST /console/requests/:id/accept`: the recipient (form field `recipient`) accepts the request from their
    /// notifications. It stays listed in `/me/apprequests`: on Facebook the app deletes a request once it acted on it.
    @Sendable func acceptRequest(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let found = try await services.storage.requests.accept(
                requestID: context.parameters.get("id") ?? "", recipientID: form["recipient"] ?? "",
                at: services.clock.now())
            guard found else { throw ConsoleInputError("There is no such request for that person.") }
            return PagePath.notice(PagePath.Console.social, "accepted")
        }
    }

    private func values(app filter: String?) async throws -> [String: Any] {
        let storage = services.storage
        var users: [String: UserRecord] = [:]
        for u in try await storage.users.list() { users[u.id] = u }
        let apps = try await storage.apps.list().filter { filter == nil || $0.id == filter }
        var posts: [(Date, [String: Any])] = [], requests: [(Date, [String: Any])] = []
        for app in apps {
            for p in try await storage.posts.posts(appID: app.id, limit: Self.shown) {
                posts.append(
                    (
                        p.createdAt,
                        [
                            "id": p.id,
                            "graphID": "\(try await storage.users.scopedID(appID: app.id, userID: p.authorID))_\(p.id)",
                            "appName": app.name, "author": users[p.authorID]?.fullName ?? p.authorID,
                            "audience": p.audience.label,
                            "message": p.message ?? "", "link": p.link ?? "",
                            "created": ConsoleController.timestamp(p.createdAt),
                        ]
                    ))
            }
            for r in try await storage.requests.requests(appID: app.id, limit: Self.shown) {
                requests.append(
                    (
                        r.createdAt,
                        [
                            "id": r.requestID, "recipientID": r.recipientID, "appName": app.name,
                            "from": users[r.senderID]?.fullName ?? r.senderID,
                            "to": users[r.recipientID]?.fullName ?? r.recipientID,
                            "message": r.message, "data": r.data ?? "",
                            "created": ConsoleController.timestamp(r.createdAt),
                            "notification": r.notificationText ?? "",
                            "accepted": r.acceptedAt.map(ConsoleController.timestamp) ?? "",
                            "waiting": r.acceptedAt == nil,
                        ]
                    ))
            }
        }
        return [
            "posts": posts.sorted { $0.0 > $1.0 }.prefix(Self.shown).map(\.1),
            "requests": requests.sorted { $0.0 > $1.0 }.prefix(Self.shown).map(\.1),
            "apps": try await console.appOptions(selected: filter),
        ]
    }
}
