import GatehouseCore
import Foundation
import SQLKit

/// `BrowserSessionStore` over any `SQLDatabase`: table `browser_sessions` (unique `secret_hash`).
package struct SQLBrowserSessionStore: BrowserSessionStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = ["id", "secret_hash", "user_id", "created_at", "expires_at", "authenticated_at"]

    /// Throws `.conflict` if the id or secret hash exists, `.notFound` for an unknown user.
    package func insert(_ session: BrowserSessionRecord) async throws {
        try await context.run(uniqueConflict: { $0.contains("secret_hash") ? "secret_hash" : "id" }) {
            try await db.insert(into: "browser_sessions")
                .columns(Self.columns)
                .values(
                    session.id, session.secretHash, session.userID, SQLCodec.seconds(session.createdAt),
                    SQLCodec.seconds(session.expiresAt), SQLCodec.seconds(session.authenticatedAt)
                )
                .run()
        }
    }

    package func find(secretHash: String) async throws -> BrowserSessionRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("browser_sessions")
                .where("secret_hash", .equal, secretHash)
                .first()
                .map(Self.decode)
        }
    }

    package static func decode(_ row: any SQLRow) throws -> BrowserSessionRecord {
        let r = RowReader(row)
        return BrowserSessionRecord(
            id: try r.string("id"),
            secretHash: try r.string("secret_hash"),
            userID: try r.string("user_id"),
            createdAt: try r.date("created_at"),
            expiresAt: try r.date("expires_at"),
            authenticatedAt: try r.date("authenticated_at")
        )
    }

    /// Unknown ids are ignored.
    package func markAuthenticated(id: String, at: Date) async throws {
        try await context.run {
            try await db.update("browser_sessions")
                .set("authenticated_at", to: SQLCodec.seconds(at))
                .where("id", .equal, id)
                .run()
        }
    }

    package func delete(id: String) async throws {
        try await context.run {
            try await db.delete(from: "browser_sessions").where("id", .equal, id).run()
        }
    }

    package func deleteAll(userID: String) async throws {
        try await context.run {
            try await db.delete(from: "browser_sessions").where("user_id", .equal, userID).run()
        }
    }
}
