import GatehouseCore
import Foundation
import SQLKit

/// `AppStore` over any `SQLDatabase`: tables `apps` and `app_roles`.
///
/// Redirect URIs and approved permissions are JSON arrays in TEXT columns.
package struct SQLAppStore: AppStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = [
        "id", "secret", "client_token", "name", "redirect_uris", "require_app_secret", "approved_permissions",
        "deauthorize_callback_url", "data_deletion_callback_url", "created_at", "require_pkce",
        "js_sdk_domains",
    ]

    /// Inserts an app. Throws `StorageError.conflict("id")` if the id is taken.
    package func create(_ app: AppRecord) async throws {
        try await context.run(uniqueConflict: { _ in "id" }) {
            try await db.insert(into: "apps")
                .columns(Self.columns)
                .values(try Self.values(app))
                .run()
        }
    }

    package func find(id: String) async throws -> AppRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("apps")
                .where("id", .equal, id)
                .first()
                .map(Self.decode)
        }
    }

    package func list() async throws -> [AppRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("apps")
                .orderBy("created_at").orderBy("seq")
                .all()
                .map(Self.decode)
        }
    }

    package func update(_ app: AppRecord) async throws {
        try await context.run {
            let values = try Self.values(app)
            let builder = db.update("apps")
            for (column, value) in zip(Self.columns, values) where column != "id" {
                builder.set(column, to: value)
            }
            let changed = try await builder.where("id", .equal, app.id).returning("id").all()
            if changed.isEmpty { throw StorageError.notFound }
        }
    }

    /// Sets or replaces a role (upsert); nil deletes it. Throws `.notFound` for an unknown app or user.
    package func setRole(appID: String, userID: String, role: AppRole?) async throws {
        try await context.run {
            guard let role else {
                try await db.delete(from: "app_roles")
                    .where("app_id", .equal, appID).where("user_id", .equal, userID)
                    .run()
                return
            }
            try await db.insert(into: "app_roles")
                .columns("app_id", "user_id", "role")
                .values(appID, userID, role.rawValue)
                .onConflict(with: ["app_id", "user_id"]) { $0.set(excludedValueOf: "role") }
                .run()
        }
    }

    package func role(appID: String, userID: String) async throws -> AppRole? {
        try await context.run {
            let raw = try await db.select().column("role").from("app_roles")
                .where("app_id", .equal, appID).where("user_id", .equal, userID)
                .first(decodingColumn: "role", as: String.self)
            return raw.flatMap(AppRole.init(rawValue:))
        }
    }

    /// Ordered by user id.
    package func roles(appID: String) async throws -> [(userID: String, role: AppRole)] {
        try await context.run {
            try await db.select().columns("user_id", "role").from("app_roles")
                .where("app_id", .equal, appID)
                .orderBy("user_id")
                .all()
                .compactMap { row -> (userID: String, role: AppRole)? in
                    let reader = RowReader(row)
                    guard let role = AppRole(rawValue: try reader.string("role")) else { return nil }
                    return (userID: try reader.string("user_id"), role: role)
                }
        }
    }

    package static func values(_ app: AppRecord) throws -> [any Encodable & Sendable] {
        [
            app.id, app.secret, app.clientToken, app.name, try SQLCodec.json(app.redirectURIs),
            app.requireAppSecret, try SQLCodec.json(app.approvedPermissions),
            app.deauthorizeCallbackURL, app.dataDeletionCallbackURL, SQLCodec.seconds(app.createdAt), app.requirePKCE,
            try SQLCodec.json(app.jsSDKDomains),
        ]
    }

    package static func decode(_ row: any SQLRow) throws -> AppRecord {
        var r = SQLColumnLayout(columns).cursor(SQLNamedCells(row, names: columns))
        return try decode(&r)
    }

    /// Reads `columns` in their order (``SQLRowCursor`` checks each name against the list).
    package static func decode(_ r: inout SQLRowCursor) throws -> AppRecord {
        let id = try r.string("id"), secret = try r.string("secret"), clientToken = try r.string("client_token")
        let name = try r.string("name"), redirectURIs = try r.list("redirect_uris")
        let requireAppSecret = try r.bool("require_app_secret")
        let approvedPermissions = try r.list("approved_permissions")
        let deauthorizeCallbackURL = try r.optionalString("deauthorize_callback_url")
        let dataDeletionCallbackURL = try r.optionalString("data_deletion_callback_url")
        let createdAt = try r.date("created_at")
        return AppRecord(
            id: id, secret: secret, clientToken: clientToken, name: name, redirectURIs: redirectURIs,
            requireAppSecret: requireAppSecret, requirePKCE: try r.bool("require_pkce"),
            approvedPermissions: approvedPermissions, deauthorizeCallbackURL: deauthorizeCallbackURL,
            dataDeletionCallbackURL: dataDeletionCallbackURL, createdAt: createdAt,
            jsSDKDomains: try r.list("js_sdk_domains")
        )
    }
}
