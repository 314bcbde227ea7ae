import GatehouseCore
import Foundation
import SQLKit

/// `FriendshipStore` over any `SQLDatabase`: tables `friendships` and `friend_requests`.
///
/// Each friendship is one row holding the normalised pair (`user_low` < `user_high`), so symmetry and
/// idempotence come from the `UNIQUE (user_low, user_high)` constraint. A request is one row per direction.
package struct SQLFriendshipStore: FriendshipStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static func pair(_ a: String, _ b: String) -> (low: String, high: String) {
        a < b ? (a, b) : (b, a)
    }

    /// Records the friendship once; later calls keep the original time. Befriending oneself does nothing.
    /// Throws `.notFound` when either user does not exist.
    package func befriend(_ a: String, _ b: String, at: Date) async throws {
        guard a != b else { return }
        let (low, high) = Self.pair(a, b)
        try await context.run {
            try await db.insert(into: "friendships")
                .columns("user_low", "user_high", "created_at")
                .values(low, high, SQLCodec.seconds(at))
                .ignoringConflicts(with: ["user_low", "user_high"])
                .run()
        }
    }

    package func unfriend(_ a: String, _ b: String) async throws {
        let (low, high) = Self.pair(a, b)
        try await context.run {
            try await db.delete(from: "friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high)
                .run()
        }
    }

    package func friends(of userID: String) async throws -> [String] {
        try await context.run {
            try await db.select().columns("user_low", "user_high").from("friendships")
                .where("user_low", .equal, userID).orWhere("user_high", .equal, userID)
                .orderBy("created_at").orderBy("seq")
                .all()
                .map { row in
                    let r = RowReader(row)
                    let low = try r.string("user_low")
                    return low == userID ? try r.string("user_high") : low
                }
        }
    }

    package func areFriends(_ a: String, _ b: String) async throws -> Bool {
        let (low, high) = Self.pair(a, b)
        return try await context.run {
            try await db.select().column("seq").from("friendships")
                .where("user_low", .equal, low).where("user_high", .equal, high)
                .first() != nil
        }
    }

    /// Inserts the request, then looks for the one back: two people asking each other at once both find the
    /// other's row, and `befriend` is idempotent, so either order ends in one friendship.
    package func request(from: String, to: String, at: Date) async throws -> Bool {
        guard from != to else { return false }
        return try await context.run {
            try await db.insert(into: "friend_requests")
                .columns("from_user", "to_user", "created_at")
                .values(from, to, SQLCodec.seconds(at))
                .ignoringConflicts(with: ["from_user", "to_user"])
                .run()
            let back = try await db.select().column("from_user").from("friend_requests")
                .where("from_user", .equal, to).where("to_user", .equal, from)
                .first()
            guard back != nil else { return false }
            let (low, high) = Self.pair(from, to)
            try await db.insert(into: "friendships")
                .columns("user_low", "user_high", "created_at")
                .values(low, high, SQLCodec.seconds(at))
                .ignoringConflicts(with: ["user_low", "user_high"])
                .run()
            try await db.delete(from: "friend_requests")
                .where { $0.where("from_user", .equal, from).where("to_user", .equal, to) }
                .orWhere { $0.where("from_user", .equal, to).where("to_user", .equal, from) }
                .run()
            return true
        }
    }

    package func requests(to userID: String) async throws -> [String] {
        try await context.run {
            try await db.select().column("from_user").from("friend_requests")
                .where("to_user", .equal, userID).orderBy("created_at").orderBy("from_user")
                .all(decodingColumn: "from_user", as: String.self)
        }
    }
}
