import GatehouseCore
import Foundation
import SQLKit

/// `UserStore` over any `SQLDatabase`: tables `users` and `app_scoped_ids`.
///
/// Emails are unique case-insensitively through the `email_key` column (the lowercased email) and its
/// UNIQUE index; `email` keeps the spelling the person typed. The picture is a blob. Profile fields are stored
/// in the columns the field table (`UserFieldValue.all`) names: text columns, and id/name pairs for places.
package struct SQLUserStore: UserStore {
    package let context: SQLStoreContext
    package let random: any RandomSource
    package let clock: any GatehouseClock

    /// Creates the store over a migrated database.
    /// - Parameter random: where new app-scoped ids come from.
    package init(
        database: any SQLDatabase, random: any RandomSource = SystemRandomSource(),
        clock: any GatehouseClock = SystemClock(),
        errors: SQLErrorClassifier = .sqlite
    ) {
        self.clock = clock
        self.context = SQLStoreContext(db: database, errors: errors)
        self.random = random
    }

    private var db: any SQLDatabase { context.db }

    /// The account's own columns; the profile fields' columns follow from the field table.
    package static let accountColumns = [
        "id", "email", "email_key", "password_hash", "first_name", "last_name", "picture", "test_user_of_app_id",
        "password_changed_at", "created_at", "account_state",
    ]

    package static let columns = accountColumns + UserFieldValue.storedColumns

    /// The key emails are compared by.
    package static func emailKey(_ email: String) -> String { email.lowercased() }

    /// A unique violation on `users` is about the email unless it names the id column.
    package static func conflictName(_ detail: String) -> String {
        detail.contains("email") ? "email" : "id"
    }

    package func create(_ user: UserRecord) async throws {
        try await context.run(uniqueConflict: Self.conflictName) {
            try await db.insert(into: "users").columns(Self.columns).values(Self.values(user)).run()
        }
    }

    package func find(id: String) async throws -> UserRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("users").where("id", .equal, id).first().map(Self.decode)
        }
    }

    package func find(email: String) async throws -> UserRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("users")
                .where("email_key", .equal, Self.emailKey(email))
                .first().map(Self.decode)
        }
    }

    package func list() async throws -> [UserRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("users")
                .orderBy("created_at").orderBy("seq")
                .all().map(Self.decode)
        }
    }

    package func testUsers(appID: String) async throws -> [UserRecord] {
        try await context.run {
            let held = try await db.select().columns(Self.columns).from("users")
                .where("test_user_of_app_id", .equal, appID)
                .orderBy("created_at").orderBy("seq")
                .all().map(Self.decode)
            let associatedIDs = try await db.select().column("user_id").from("test_user_apps")
                .where("app_id", .equal, appID).orderBy("created_at").orderBy("user_id")
                .all(decodingColumn: "user_id", as: String.self)
            guard !associatedIDs.isEmpty else { return held }
            let heldIDs = Set(held.map(\.id))
            let wanted = associatedIDs.filter { !heldIDs.contains($0) }
            guard !wanted.isEmpty else { return held }
            let byID = Dictionary(
                try await db.select().columns(Self.columns).from("users").where("id", .in, wanted)
                    .all().map(Self.decode).map { ($0.id, $0) },
                uniquingKeysWith: { first, _ in first })
            return held + wanted.compactMap { byID[$0] }
        }
    }

    package func associatedApps(testUserID: String) async throws -> [String] {
        try await context.run {
            try await db.select().column("app_id").from("test_user_apps")
                .where("user_id", .equal, testUserID).orderBy("created_at").orderBy("app_id")
                .all(decodingColumn: "app_id", as: String.self)
        }
    }

    /// Throws `.notFound` when the app or the user does not exist (the foreign keys refuse the row).
    package func associate(testUserID: String, appID: String, at: Date) async throws -> Bool {
        try await context.run {
            let added = try await db.insert(into: "test_user_apps")
                .columns("app_id", "user_id", "created_at")
                .values(appID, testUserID, SQLCodec.seconds(at))
                .ignoringConflicts(with: ["app_id", "user_id"])
                .returning("user_id")
                .all()
            return !added.isEmpty
        }
    }

    package func dissociate(testUserID: String, appID: String) async throws -> Bool {
        try await context.run {
            let removed = try await db.delete(from: "test_user_apps")
                .where("app_id", .equal, appID).where("user_id", .equal, testUserID)
                .returning("user_id").all()
            return !removed.isEmpty
        }
    }

    /// Replaces every field of the user with the same id. Throws `.notFound` if there is none and
    /// `.conflict("email")` if the new email belongs to someone else.
    package func update(_ user: UserRecord) async throws {
        try await context.run(uniqueConflict: Self.conflictName) {
            let builder = db.update("users")
            for (column, value) in zip(Self.columns, Self.values(user)) where column != "id" {
                builder.set(column, to: value)
            }
            let changed = try await builder.where("id", .equal, user.id).returning("id").all()
            if changed.isEmpty { throw StorageError.notFound }
        }
    }

    /// Deletes dependants first, then the user (foreign keys also cascade). Deleting a missing user is a no-op.
    package func delete(id: String) async throws {
        try await context.run {
            let tables = [
                "tokens", "browser_sessions", "auth_codes", "grants", "app_roles", "app_scoped_ids", "test_user_apps",
            ]
            for table in tables {
                try await db.delete(from: table).where("user_id", .equal, id).run()
            }
            try await db.delete(from: "friend_requests")
                .where("from_user", .equal, id).orWhere("to_user", .equal, id)
                .run()
            try await db.delete(from: "friendships")
                .where("user_low", .equal, id).orWhere("user_high", .equal, id)
                .run()
            try await db.delete(from: "users").where("id", .equal, id).run()
        }
    }

    /// Creates a random 15-digit id on first use (`INSERT … ON CONFLICT DO NOTHING`, then re-reads, so two
    /// racing callers agree). Throws `.notFound` when the app or user does not exist.
    package func scopedID(appID: String, userID: String) async throws -> String {
        try await context.run {
            for _ in 0..<8 {
                if let existing = try await findScopedID(appID: appID, userID: userID) { return existing }
                try await db.insert(into: "app_scoped_ids")
                    .columns("app_id", "user_id", "scoped_id", "created_at")
                    .values(appID, userID, random.numericID(digits: 15), SQLCodec.seconds(clock.now()))
                    .ignoringConflicts()
                    .run()
            }
            // Only reachable if every generated id collided with another user's id in this app.
            throw StorageError.unavailable("could not allocate an app-scoped id")
        }
    }

    package func userID(appID: String, scopedID: String) async throws -> String? {
        try await context.run {
            try await db.select().column("user_id").from("app_scoped_ids")
                .where("app_id", .equal, appID).where("scoped_id", .equal, scopedID)
                .first(decodingColumn: "user_id", as: String.self)
        }
    }

    package func scopedIDs(userID: String) async throws -> [(appID: String, scopedID: String)] {
        try await context.run {
            try await db.select().columns("app_id", "scoped_id").from("app_scoped_ids")
                .where("user_id", .equal, userID).orderBy("app_id").all()
                .map {
                    (
                        try $0.decode(column: "app_id", as: String.self),
                        try $0.decode(column: "scoped_id", as: String.self)
                    )
                }
        }
    }

    package func assignScopedID(appID: String, userID: String, scopedID: String) async throws {
        try await context.run(uniqueConflict: { _ in "scoped_id" }) {
            try await db.insert(into: "app_scoped_ids")
                .columns("app_id", "user_id", "scoped_id", "created_at")
                .values(appID, userID, scopedID, SQLCodec.seconds(clock.now()))
                .run()
        }
    }

    private func findScopedID(appID: String, userID: String) async throws -> String? {
        try await db.select().column("scoped_id").from("app_scoped_ids")
            .where("app_id", .equal, appID).where("user_id", .equal, userID)
            .first(decodingColumn: "scoped_id", as: String.self)
    }

    package static func values(_ user: UserRecord) -> [any Encodable & Sendable] {
        let account: [any Encodable & Sendable] = [
            user.id, user.email, emailKey(user.email), user.passwordHash, user.firstName, user.lastName, user.picture,
            user.testUserOfAppID, SQLCodec.seconds(user.passwordChangedAt), SQLCodec.seconds(user.createdAt),
            user.accountState.rawValue,
        ]
        // Typed first: inferred as `[any Encodable]`, `flatMap` would keep each field's array as one value.
        let profile: [String?] = UserFieldValue.all.flatMap { $0.stored(user) }
        return account + profile.map { $0 as any Encodable & Sendable }
    }

    package static func decode(_ row: any SQLRow) throws -> UserRecord {
        var r = SQLColumnLayout(columns).cursor(SQLNamedCells(row, names: columns))
        return try decode(&r)
    }

    /// Reads `columns` in their order (``SQLRowCursor`` checks each name against the list); `email_key` is
    /// selected with them but only compared in SQL.
    package static func decode(_ r: inout SQLRowCursor) throws -> UserRecord {
        let id = try r.string("id"), email = try r.string("email")
        try r.skip("email_key")
        var user = UserRecord(
            id: id,
            email: email,
            passwordHash: try r.string("password_hash"),
            firstName: try r.string("first_name"),
            lastName: try r.string("last_name"),
            picture: try r.data("picture"),
            testUserOfAppID: try r.optionalString("test_user_of_app_id"),
            passwordChangedAt: try r.optionalDate("password_changed_at"),
            createdAt: try r.date("created_at"),
            // A value this build does not know (written by a newer one) reads as the strictest state it knows.
            accountState: AccountState(rawValue: try r.string("account_state")) ?? .disabled
        )
        for field in UserFieldValue.all { try field.load(into: &user) { try r.optionalString($0) } }
        return user
    }
}
