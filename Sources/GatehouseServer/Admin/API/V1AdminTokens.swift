import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/admin/api/v1/admin-tokens` and `/admin/api/v1/audit`: admin tokens made, listed and revoked over the API,
/// and the audit log read back.
///
///     GET    /admin-tokens          {data: [AdminToken], next_cursor}   (never the token itself)
///     POST   /admin-tokens          {name, read_only?} -> 201 AdminToken with `token`, shown this once
///     DELETE /admin-tokens/{id}     204; 404 when unknown or already revoked
///     GET    /audit                 {data: [AuditEntry], next_cursor}   newest first
struct V1AdminTokens: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/admin-tokens") { call in
                let page = try Page(call.request)
                return AdminAPIv1.reply(page.answer(try await AdminTokens(services: services).list()) { Self.json($0) })
            },
            V1Route(method: .post, path: "/admin-tokens", bodyLimit: 4096) { call in
                var body = try call.body()
                let name = try body.requiredString("name", max: AdminTokens.maximumNameLength)
                let readOnly = try body.bool("read_only") ?? false
                try body.finish()
                let created: AdminTokens.Created
                do {
                    created = try await AdminTokens(services: services).create(name: name, readOnly: readOnly)
                } catch let error as AccountError {
                    throw Problem.validation("name", error.description)
                }
                return AdminAPIv1.reply(Self.json(created.record, token: created.token), status: .created)
            },
            V1Route(method: .delete, path: "/admin-tokens/{id}") { call in
                let id = call.parameter("id")
                guard try await AdminTokens(services: services).revoke(id: id) else {
                    throw Problem.notFound("no live admin token \(GraphError.echo(id))")
                }
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .get, path: "/audit") { call in
                let cursor = try AuditCursor(call.request)
                let entries = try await AuditLog(services: services).page(
                    before: cursor.before, limit: cursor.limit + 1)
                let shown = entries.prefix(cursor.limit)
                let next: JSONValue =
                    entries.count > cursor.limit ? .string(AuditCursor.encode(shown.last?.sequence ?? 0)) : .null
                return AdminAPIv1.reply(["data": .array(shown.map(Self.json)), "next_cursor": next])
            },
        ]
    }

    /// An admin token as the API shows it; `token` only in the answer that made it.
    static func json(_ record: AdminTokenRecord, token: String? = nil) -> JSONValue {
        var object: JSONObject = [
            "id": .string(record.id), "name": .string(record.name), "prefix": .string(record.displayPrefix),
            "read_only": .bool(record.readOnly), "created_time": AdminAPIv1.time(record.createdAt),
            "revoked_time": record.revokedAt.map(AdminAPIv1.time) ?? .null,
        ]
        if let token { object["token"] = .string(token) }
        return .object(object)
    }

    static func json(_ entry: AuditEntryRecord) -> JSONValue {
        [
            "id": .string(String(entry.sequence)), "time": AdminAPIv1.time(entry.time),
            "actor": [
                "kind": .string(entry.actorKind), "id": AdminAPIv1.optional(entry.actorID),
                "name": AdminAPIv1.optional(entry.actorName),
            ],
            "method": .string(entry.method), "route": .string(entry.route), "target": AdminAPIv1.optional(entry.target),
            "status": .int(Int64(entry.status)),
        ]
    }
}

/// The audit log's paging: `?limit=` as every v1 list, and a cursor naming the last entry served, so new
/// entries (always newest) never shift a later page.
struct AuditCursor {
    var limit: Int
    var before: Int64?

    /// - Throws: a validation ``Problem`` naming `limit` or `cursor`.
    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        limit = Page.defaultLimit
        if let text = query["limit"].map(String.init) {
            guard let value = Int(text), (1...Page.maximumLimit).contains(value) else {
                throw Problem.validation("limit", "limit must be a whole number from 1 to \(Page.maximumLimit)")
            }
            limit = value
        }
        if let cursor = query["cursor"].map(String.init) {
            guard let value = Page.number(after: "a", in: cursor) else {
                throw Problem.validation("cursor", "the cursor is not one this server gave out")
            }
            before = value
        }
    }

    /// `a` and the sequence number (the document's `auditCursor` pattern); `a0` is an empty page.
    static func encode(_ sequence: Int64) -> String { "a\(sequence)" }
}
