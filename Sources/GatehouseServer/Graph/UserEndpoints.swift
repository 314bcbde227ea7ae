import GatehouseCore
import Foundation
import GatehouseProtocol

/// `/{user}` and its edges: picture, friends, permissions.
struct UserEndpoints: Sendable {
    let services: GatehouseServices

    /// Permissions whose data the caller may read on this node right now.
    func readable(_ node: UserNode, caller: Caller) async throws -> Set<String> {
        switch caller {
        case .user(let u) where u.user.id == node.user.id:
            return Set(u.isDataAccessExpired ? [] : u.grant.granted).union([Permission.publicProfile])
        case .app(let app):
            guard let grant = try await services.storage.grants.find(appID: app.id, userID: node.user.id) else {
                return [Permission.publicProfile]
            }
            let expired = grant.isDataAccessExpired(at: services.clock.now())
            return Set(expired ? [] : grant.granted).union([Permission.publicProfile])
        default:
            return [Permission.publicProfile]
        }
    }

    func read(_ node: UserNode, caller: Caller, call: GraphCall) async throws -> GraphReply {
        let fields: [FieldSelection]
        if let raw = call.params["fields"], raw.unicodeScalars.contains(where: { !Self.isBlank($0) }) {
            do {
                fields = try FieldSelectionParser.parse(raw)
            } catch {
                throw GraphFailure(.invalidParameter(Self.describe(error)))
            }
        } else {
            fields = [
                FieldSelection(name: "name", modifiers: [], subfields: nil),
                FieldSelection(name: "id", modifiers: [], subfields: nil),
            ]
        }
        return .json(.object(try await render(node, fields: fields, caller: caller, call: call)))
    }

    /// What `CharacterSet.whitespaces` holds (tab and the space separators), without Foundation's string bridge.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }

    static func describe(_ error: any Error) -> String {
        switch error as? FieldSelectionError {
        case .tooLong: "The fields parameter is too long"
        case .tooDeep: "The fields parameter is nested too deeply"
        case .syntax(let message): message
        case nil: "The fields parameter could not be parsed"
        }
    }

    func render(_ node: UserNode, fields: [FieldSelection], caller: Caller, call: GraphCall) async throws -> JSONObject
    {
        for field in fields
        where UserFieldValue.named(field.name) == nil && !UserFields.silentlyIgnored.contains(field.name) {
            throw GraphFailure(.nonexistingField(field.name, nodeType: "User"))
        }
        let allowed = try await readable(node, caller: caller)
        let context = UserFieldContext(
            user: node.user, scopedID: node.scopedID, appID: node.appID, baseURL: services.baseURL,
            now: services.clock.now())
        var out = JSONObject([])
        for field in fields {
            guard let entry = UserFieldValue.named(field.name), allowed.contains(entry.field.permission) else {
                continue
            }
            // The edges need storage or the request's modifiers; every other field reads from the table.
            guard case .edge(let edge) = entry.kind else {
                if let value = entry.read(context) { out[field.name] = value }
                continue
            }
            let value: JSONValue
            switch edge {
            case .picture:
                let (w, h) = PictureSize.pixels(
                    type: field.modifier("type"), width: field.modifier("width"), height: field.modifier("height"))
                let data = pictureData(node, width: w, height: h)
                value = .object(["data": .object(Self.select(data, field.subfields))])
            case .friends:
                value = .object(
                    try await friendsPage(
                        node, caller: caller, limit: field.modifier("limit"), after: nil, subfields: field.subfields,
                        call: call))
            case .permissions:
                guard Self.isSelfOrApp(node, caller) else { continue }
                value = .object(["data": .array(try await permissionList(node, only: nil))])
            }
            out[field.name] = value
        }
        return out
    }

    /// Keeps only the requested subfields (`picture{url}`), in the requested order.
    static func select(_ object: JSONObject, _ subfields: [FieldSelection]?) -> JSONObject {
        guard let subfields, !subfields.isEmpty else { return object }
        var out = JSONObject([])
        for f in subfields { if let v = object[f.name] { out[f.name] = v } }
        return out
    }

    static func isSelfOrApp(_ node: UserNode, _ caller: Caller) -> Bool {
        switch caller {
        case .user(let u): u.user.id == node.user.id
        case .app: true
        case .client: false
        }
    }

    func pictureData(_ node: UserNode, width: Int, height: Int) -> JSONObject {
        let url = "\(services.baseURL)/pictures/\(node.appID)/\(node.scopedID)?size=\(max(width, height))"
        return [
            "height": .int(Int64(height)), "is_silhouette": .bool(node.user.picture == nil), "url": .string(url),
            "width": .int(Int64(width)),
        ]
    }

    func picture(_ node: UserNode, call: GraphCall) async throws -> GraphReply {
        let (w, h) = PictureSize.pixels(
            type: call.param("type"), width: call.param("width"), height: call.param("height"))
        let data = pictureData(node, width: w, height: h)
        if call.param("redirect") == "false" || call.param("redirect") == "0" {
            return .json(["data": .object(data)])
        }
        return .redirect(data["url"]?.stringValue ?? "")
    }
}
