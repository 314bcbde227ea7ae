import GatehouseCore
import Foundation
import SQLKit

extension SQLEmulatorStore {
    /// The tables a replacement empties, children before parents. Apps and people cascade to roles, scoped ids,
    /// friendships, grants, codes, tokens, sessions, posts, requests, callbacks and webhooks; what is left of
    /// deleted accounts goes too, so no earlier person's token or address answers as deleted after a reset.
    static let replacedTables =
        historyTables + ["injected_errors", "emulator_settings", "deleted_accounts", "apps", "users"]

    /// What the old state did, which a test could still see after a reset: events and their deliveries, the
    /// durable request journal, the outboxes (mail and the codes it carries, app callbacks, Webhooks
    /// notifications) and the rate limits' counters. The audit log stays: it is the operators' record of who
    /// changed what, the replacement itself included, and a log its own subject could erase would record nothing.
    static let historyTables = [
        "event_deliveries", "events", "request_journal", "mail_messages", "account_codes", "app_callbacks",
        "webhook_deliveries", "rate_limits",
    ]

    /// At most this many bound values in one statement (SQLite allows 32,766, PostgreSQL 65,535).
    static let bindsPerStatement = 8_000

    /// One transaction: a `DELETE` per table in ``replacedTables`` (and `signing_keys` when `state` replaces them;
    /// `admin_audit`, the admin accounts, tokens and sessions and the server's own keys stay),
    /// then one multi-row `INSERT` per table that `state` has rows for (more only past ``bindsPerStatement``).
    /// A failure anywhere rolls the whole of it back, so a bad import leaves the state as it was.
    package func replaceAll(with state: StoredState) async throws {
        try await context.run {
            try await Self.inTransaction(context.db) { db in
                try await Self.delete(keepingKeys: state.signingKeys == nil, on: db)
                try await Self.insert(state, on: db)
            }
        }
    }

    /// The `INSERT`s of ``replaceAll(with:)`` alone, in one transaction.
    package func insertAll(_ state: StoredState) async throws {
        try await context.run {
            try await Self.inTransaction(context.db) { db in try await Self.insert(state, on: db) }
        }
    }

    /// A `DELETE` for each of the tables that has rows, in ``replacedTables``' order. One `SELECT` first tells which:
    /// between a suite's tests most tables are empty, and each `DELETE` is compiled anew (those on `apps` and `users`
    /// generate their cascades), which under perf was a third of a reset's CPU.
    private static func delete(keepingKeys: Bool, on db: any SQLDatabase) async throws {
        let tables = (keepingKeys ? [] : ["signing_keys"]) + replacedTables
        let probes = tables.map { table -> SQLQueryString in
            "(SELECT 1 FROM \(ident: table) LIMIT 1) AS \(ident: table)"
        }
        let row = try await db.raw("SELECT \(SQLList(probes))").first()
        for table in tables {
            let empty = try row?.decodeNil(column: table) ?? false
            if !empty { try await db.delete(from: table).run() }
        }
    }

    private static func insert(_ state: StoredState, on db: any SQLDatabase) async throws {
        let at = SQLCodec.seconds(state.createdAt)
        try await insert(into: "apps", SQLAppStore.columns, try state.apps.map(SQLAppStore.values), on: db)
        try await insert(into: "users", SQLUserStore.columns, state.users.map(SQLUserStore.values), on: db)
        // A role, grant or friendship named twice is one row, the last given (the stores' upserts keep the last).
        let roles = lastOfEach(state.roles) { [$0.appID, $0.userID] }
        try await insert(
            into: "app_roles", ["app_id", "user_id", "role"], roles.map { [$0.appID, $0.userID, $0.role.rawValue] },
            on: db)
        try await insert(
            into: "app_scoped_ids", ["app_id", "user_id", "scoped_id", "created_at"],
            state.scopedIDs.map { [$0.appID, $0.userID, $0.scopedID, at] }, on: db)
        let pairs = lastOfEach(state.friendships.filter { $0.0 != $0.1 }.map { SQLFriendshipStore.pair($0.0, $0.1) }) {
            [$0.low, $0.high]
        }
        try await insert(
            into: "friendships", ["user_low", "user_high", "created_at"], pairs.map { [$0.low, $0.high, at] }, on: db)
        let grants = lastOfEach(state.grants) { [$0.appID, $0.userID] }
        try await insert(into: "grants", SQLGrantStore.columns, try grants.map(SQLGrantStore.values), on: db)
        try await insert(into: "tokens", SQLTokenStore.columns, state.tokens.map(SQLTokenStore.values), on: db)
        try await insert(
            into: "signing_keys", SQLSigningKeyStore.columns, (state.signingKeys ?? []).map(SQLSigningKeyStore.values),
            on: db)
        try await insert(into: "injected_errors", columns, state.injections.map(values), on: db)
        try await insert(into: "posts", SQLPostStore.columns, state.posts.map(SQLPostStore.values), on: db)
        try await insert(
            into: "app_requests", SQLAppRequestStore.columns, state.appRequests.map(SQLAppRequestStore.values), on: db)
        let subscriptions = lastOfEach(state.webhookSubscriptions) { [$0.appID, $0.object.rawValue] }
        try await insert(
            into: "webhook_subscriptions", SQLWebhookStore.subscriptionColumns,
            try subscriptions.map(SQLWebhookStore.subscriptionValues), on: db)
        try await insert(
            into: "emulator_settings", ["name", "value"], state.settings.sorted { $0.key < $1.key }.map { [$0, $1] },
            on: db)
    }

    /// `rows` in as few multi-row `INSERT`s as ``bindsPerStatement`` allows; none for no rows.
    private static func insert(
        into table: String, _ columns: [String], _ rows: [[any Encodable & Sendable]], on db: any SQLDatabase
    ) async throws {
        let perStatement = max(1, bindsPerStatement / columns.count)
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(start + perStatement, rows.endIndex)
            let insert = db.insert(into: table).columns(columns)
            for row in rows[start..<end] { insert.values(row) }
            try await insert.run()
            start = end
        }
    }

    /// `items` less any that a later item with the same key replaces.
    private static func lastOfEach<T>(_ items: [T], key: (T) -> [String]) -> [T] {
        var last: [[String]: Int] = [:]
        for (index, item) in items.enumerated() { last[key(item)] = index }
        return items.enumerated().filter { last[key($0.element)] == $0.offset }.map(\.element)
    }

    /// Runs `body` in one transaction. On SQLite it joins the writer's next group commit (`BEGIN IMMEDIATE`, one
    /// `COMMIT`); elsewhere it is one session's `BEGIN` … `COMMIT`.
    private static func inTransaction(
        _ db: any SQLDatabase, _ body: @escaping @Sendable (any SQLDatabase) async throws -> Void
    ) async throws {
        if let sqlite = db as? SQLiteReadRouting {
            try await sqlite.transaction(body)
            return
        }
        let begin: SQLQueryString = db.dialect.name == "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"
        try await db.withSession { session in
            try await session.raw(begin).run()
            do {
                try await body(session)
                try await session.raw("COMMIT").run()
            } catch {
                try? await session.raw("ROLLBACK").run()
                throw error
            }
        }
    }
}
