import GatehouseCore
import Foundation
import SQLKit
import Logging

/// One numbered schema change. Applied once, in order, and recorded in `gatehouse_migrations`.
package struct SQLMigration: Sendable {
    /// Position in the sequence; never reused or renumbered once released.
    package var version: Int
    /// A short description, for logs.
    package var name: String
    /// The statements. They run inside one transaction together with the bookkeeping row.
    package var apply: @Sendable (any SQLDatabase) async throws -> Void

    /// Creates a migration.
    package init(version: Int, name: String, apply: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }
}

/// Applies Gatehouse's migrations to a database.
///
/// The bookkeeping table is `gatehouse_migrations(version, applied_at)`. Each pending migration runs in its
/// own transaction (both SQLite and PostgreSQL have transactional DDL), and its statements use
/// `IF NOT EXISTS` so that even a half-applied migration from an older, crashed process re-runs cleanly.
package enum SQLMigrator {
    /// Every migration, oldest first.
    package static let all: [SQLMigration] = [
        Migration01InitialSchema.migration, Migration02SigningKeys.migration, Migration03EmulatorControls.migration,
        Migration04AdminAccountsAndRateLimits.migration, Migration05AudienceAndPosts.migration,
        Migration06DeviceLoginAndTokenCache.migration, Migration07CallbackOutbox.migration,
        Migration08ProfileQuotes.migration, Migration09RequirePKCE.migration, Migration10RequestJournal.migration,
        Migration11AdminTokensAndAudit.migration, Migration12AccountStates.migration,
        Migration13JavaScriptSDKDomains.migration,
        Migration14AppRequestNotifications.migration, Migration15AccountMail.migration, Migration16TwoFactor.migration,
        Migration17ProfileLocale.migration, Migration18DeletedAccounts.migration,
        Migration19Events.migration, Migration20TestUserApps.migration,
        Migration21Webhooks.migration, Migration22EventPositions.migration,
    ]

    package static let table = "gatehouse_migrations"

    /// PostgreSQL advisory lock id taken while migrating ("GHMIGRAT" read as hex-ish digits; any constant does).
    package static let advisoryLockKey: Int64 = 0x4748_4D49_4752_4154

    /// Brings the schema up to date; a no-op when it already is.
    package static func migrate(_ db: any SQLDatabase, migrations: [SQLMigration] = all) async throws {
        // PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin (it can fail on the
        // catalog's unique index); one retry finds the table made.
        for attempt in 1...3 {
            do {
                try await db.create(table: table)
                    .ifNotExists()
                    .column("version", type: .bigint, .primaryKey(autoIncrement: false))
                    .column("applied_at", type: .bigint, .notNull)
                    .run()
                break
            } catch  where attempt < 3 {
                try await Task.sleep(nanoseconds: 100_000_000)
            }
        }
        let applied = Set(try await appliedVersions(db))
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
            // Another process (the CLI next to the server) may be migrating the same database: a lost race
            // fails one attempt, and the retry finds the version recorded.
            var attempt = 1
            while true {
                do {
                    try await apply(migration, to: db)
                    break
                } catch  where attempt < 5 {
                    attempt += 1
                    try await Task.sleep(nanoseconds: 200_000_000)
                }
            }
        }
    }

    /// Applies one migration in a transaction, unless it is recorded by the time the transaction starts.
    package static func apply(_ migration: SQLMigration, to db: any SQLDatabase) async throws {
        try await db.withSession { session in
            // SQLite: take the write lock up front so a concurrent migrator waits (busy_timeout) instead of
            // failing the read-to-write upgrade at once. PostgreSQL has no IMMEDIATE and needs none.
            try await session.raw(db.dialect.name == "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN").run()
            do {
                if db.dialect.name == "postgresql" {
                    // Several nodes may start at once: one migrates, the others wait here and then find the
                    // version recorded. The lock ends with the transaction.
                    try await session.raw("SELECT pg_advisory_xact_lock(\(bind: Self.advisoryLockKey))").run()
                }
                let done =
                    try await session.select().column("version").from(table)
                    .where("version", .equal, Int64(migration.version))
                    .first() != nil
                if !done {
                    try await migration.apply(session)
                    try await session.insert(into: table)
                        .columns("version", "applied_at")
                        // Wall-clock time on purpose: when an operator's database was really migrated.
                        .values(Int64(migration.version), SQLCodec.seconds(SystemClock().now()))
                        .ignoringConflicts()
                        .run()
                }
                try await session.raw("COMMIT").run()
                if !done {
                    db.logger.info(
                        "Applied storage migration",
                        metadata: [
                            "version": "\(migration.version)", "name": "\(migration.name)",
                        ])
                }
            } catch {
                try? await session.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// The versions recorded as applied, ascending.
    package static func appliedVersions(_ db: any SQLDatabase) async throws -> [Int] {
        try await db.select().column("version").from(table).orderBy("version")
            .all(decodingColumn: "version", as: Int.self)
    }
}

/// Column types and DDL pieces that differ between dialects, chosen from `db.dialect.name`.
package enum SQLSchemaTypes {
    /// Binary data: SQLKit's `.blob` (`BLOB`), except PostgreSQL, which calls it `BYTEA`.
    package static func blob(for db: any SQLDatabase) -> SQLDataType {
        db.dialect.name == "postgresql" ? .custom(SQLRaw("BYTEA")) : .blob
    }

    /// `BOOLEAN` is understood by both SQLite (numeric affinity, 0/1) and PostgreSQL.
    package static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS name ON table (columns)`, valid in SQLite and PostgreSQL.
    package static func createIndex(
        _ db: any SQLDatabase, _ name: String, on table: String, _ columns: [String], unique: Bool = false
    ) async throws {
        var index = SQLCreateIndex(
            name: SQLList([SQLRaw("IF NOT EXISTS"), SQLIdentifier(name)], separator: SQLRaw(" ")))
        index.modifier = unique ? SQLRaw("UNIQUE") : nil
        index.table = SQLIdentifier(table)
        index.columns = columns.map(SQLIdentifier.init(_:))
        try await db.execute(sql: index) { _ in }
    }
}
