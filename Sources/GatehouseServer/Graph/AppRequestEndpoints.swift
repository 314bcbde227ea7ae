import GatehouseCore
import Foundation
import GatehouseProtocol

/// `GET /{user}/apprequests`, `GET|DELETE /{request-id}_{recipient-id}` and `/{request-id}`.
///
/// Requests belong to one app: a person sees the requests sent through the app whose token asks. As on
/// Facebook (Requests 2.0), each recipient's copy is `{request id}_{recipient id}`, and deleting it is the
/// app's job once the person acted on it: the recipient's token or the app token may delete, the sender may not.
struct AppRequestEndpoints: Sendable {
    let services: GatehouseServices

    /// The requests waiting for `node` from the caller's app. Needs the person's own token or the app token.
    func list(_ node: UserNode, caller: Caller) async throws -> GraphReply {
        guard UserEndpoints.isSelfOrApp(node, caller) else {
            throw GraphFailure(.unsupportedRequest(method: "get", objectID: node.scopedID))
        }
        var data: [JSONValue] = []
        for request in try await services.storage.requests.requests(appID: caller.app.id, recipientID: node.user.id) {
            data.append(.object(try await render(request, appID: caller.app.id, withRecipient: true)))
        }
        return .json(["data": .array(data)])
    }

    /// Who may see a request: its recipient, its sender, and its app.
    func canRead(_ request: AppRequestRecord, caller: Caller) -> Bool {
        switch caller {
        case .app(let app): app.id == request.appID
        case .user(let u):
            u.app.id == request.appID && (u.user.id == request.recipientID || u.user.id == request.senderID)
        case .client: false
        }
    }

    func read(_ request: AppRequestRecord, caller: Caller, withRecipient: Bool) async throws -> GraphReply {
        .json(.object(try await render(request, appID: caller.app.id, withRecipient: withRecipient)))
    }

    /// Deletes one recipient's copy: by that recipient's token or the app token.
    func delete(_ request: AppRequestRecord, caller: Caller, objectID: String) async throws -> GraphReply {
        switch caller {
        case .app(let app) where app.id == request.appID: break
        case .user(let u) where u.app.id == request.appID && u.user.id == request.recipientID: break
        default:
            if canRead(request, caller: caller) { throw GraphFailure(.permissionsError) }
            throw GraphFailure(.unsupportedRequest(method: "delete", objectID: objectID))
        }
        try await services.storage.requests.delete(requestID: request.requestID, recipientID: request.recipientID)
        return .success
    }

    /// Facebook's request object. `withRecipient: false` is the request as a whole (`/{request-id}` asked by
    /// its sender or app): no `to`, and the bare request id.
    func render(_ request: AppRequestRecord, appID: String, withRecipient: Bool) async throws -> JSONObject {
        let storage = services.storage
        let recipientScoped = try await storage.users.scopedID(appID: appID, userID: request.recipientID)
        let senderScoped = try await storage.users.scopedID(appID: appID, userID: request.senderID)
        var out = JSONObject([])
        out["id"] = .string(withRecipient ? "\(request.requestID)_\(recipientScoped)" : request.requestID)
        if let app = try await storage.apps.find(id: request.appID) {
            out["application"] = .object(["name": .string(app.name), "id": .string(app.id)])
        }
        if withRecipient, let to = try await storage.users.find(id: request.recipientID) {
            out["to"] = .object(["name": .string(to.fullName), "id": .string(recipientScoped)])
        }
        if let from = try await storage.users.find(id: request.senderID) {
            out["from"] = .object(["name": .string(from.fullName), "id": .string(senderScoped)])
        }
        out["message"] = .string(request.message)
        // The dialog's `notification_text` has no field in Facebook's request object; Gatehouse shows it (only when
        // sent) so the text the recipient's notification carried can be read back, as the seeds' apps expected.
        if let text = request.notificationText { out["notification_text"] = .string(text) }
        if let data = request.data { out["data"] = .string(data) }
        out["created_time"] = .string(GraphTime.format(request.createdAt))
        return out
    }
}
