import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Foundation
import Logging
import SQLKit
import SQLiteKit
import SQLiteNIO

/// Bulk data for `scripts/bench`: one app, N people with grants and app-scoped ids, M user tokens, unused
/// authorization codes, and one logged-in browser session. `gatehouse seed bench` drives it.
///
/// Rows go in through multi-row `INSERT`s, thousands per statement and one transaction per batch, with foreign
/// key checks off for the seeding connection only on SQLite (the rows are consistent by construction). It runs
/// on PostgreSQL too (`BENCH_DATABASE=postgres`), over one connection (``BenchDatabase``). A million people
/// and five million tokens take a few minutes on two cores. Every token is random and stored only as its
/// SHA-256, like a real one; the first `sampleTokens` are written out so the benchmark can present them.
package struct BenchSeeder: Sendable {
    package struct Options: Sendable {
        package var users: Int
        package var tokens: Int
        /// Codes for the plain code exchange, and as many again with `openid` (id_token issuance).
        package var codes: Int
        package var sampleTokens: Int
        /// Logged-in browser sessions, one per person from the first: the consent row over many people (one
        /// person's 32 concurrent consents all update one grant row, which is the bench's artefact).
        package var sessions: Int
        package init(users: Int, tokens: Int, codes: Int = 0, sampleTokens: Int = 1000, sessions: Int = 1) {
            self.users = users
            self.tokens = tokens
            self.codes = codes
            self.sampleTokens = sampleTokens
            self.sessions = sessions
        }
    }

    /// What the benchmark needs to drive the seeded server (written as `bench-seed.json`).
    package struct Output: Codable, Sendable {
        package var app_id: String
        package var app_secret: String
        package var redirect_uri: String
        package var session_cookie: String
        /// The `gh_csrf` cookie value.
        package var csrf_token: String
        /// What a form posts as `csrf_token` with that cookie and ``session_cookie``: the cookie bound to the session.
        package var csrf_form_token: String
        /// Every seeded session as `[session cookie, form token]`, the first being ``session_cookie``'s; all
        /// share the ``csrf_token`` cookie.
        package var sessions: [[String]]
        package var users: Int
        package var tokens: Int
        package var sample_tokens: [String]
        package var codes: [String]
        package var openid_codes: [String]
    }

    package static let redirectURI = "https://bench.example/callback"
    package let db: any SQLDatabase
    package let passwordHash: String
    package let now: Date
    package let progress: @Sendable (String) -> Void
    /// Receives every token's text, batch by batch, in seeding order (`--tokens-file`: the cold `/me` run
    /// presents each token once, and five million do not belong in the JSON).
    package var tokenSink: (@Sendable ([String]) throws -> Void)?

    /// - Parameter passwordHash: one bcrypt hash shared by every seeded person (hashing a million would take hours).
    package init(
        db: any SQLDatabase, passwordHash: String, now: Date = Date(),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.db = db
        self.passwordHash = passwordHash
        self.now = now
        self.progress = progress
    }

    package func seed(_ options: Options) async throws -> Output {
        let t = Int64(now.timeIntervalSince1970)
        var rng = SystemRandomNumberGenerator()
        let appID = "9" + String(format: "%015llu", UInt64.random(in: 0..<1_000_000_000_000_000, using: &rng))
        let secret = Self.random(32, alphabet: Self.hex, using: &rng)
        // SQLite only: PostgreSQL checks foreign keys per statement anyway, and its durability is the cluster's.
        let sqlite = db.dialect.name == "sqlite"
        if sqlite {
            try await db.raw("PRAGMA foreign_keys=OFF").run()
            try await db.raw("PRAGMA synchronous=NORMAL").run()
        }
        try await db.insert(into: "apps")
            .columns(
                "id", "secret", "client_token", "name", "redirect_uris", "require_app_secret", "approved_permissions",
                "created_at"
            )
            .values(
                appID, secret, Self.random(32, alphabet: Self.hex, using: &rng), "Bench App",
                try SQLCodec.json([Self.redirectURI]), false, try SQLCodec.json(["email", "user_friends"]), t
            )
            .run()

        let userBase: Int64 = 100_000_000_000_000, scopedBase: Int64 = 200_000_000_000_000
        try await batches(total: options.users, size: 1000, label: "users") { range in
            var rows: [[any Encodable & Sendable]] = []
            for i in range {
                let id = String(userBase + Int64(i))
                rows.append([
                    id, "bench\(i)@bench.example", "bench\(i)@bench.example", passwordHash, "Bench", "Person\(i)", t,
                ])
            }
            try await insert(
                "users", ["id", "email", "email_key", "password_hash", "first_name", "last_name", "created_at"], rows)
            rows = range.map { i -> [any Encodable & Sendable] in
                [appID, String(userBase + Int64(i)), String(scopedBase + Int64(i)), t]
            }
            try await insert("app_scoped_ids", ["app_id", "user_id", "scoped_id", "created_at"], rows)
            let granted = try SQLCodec.json(["public_profile", "email"]), declined = try SQLCodec.json([])
            rows = range.map { i -> [any Encodable & Sendable] in
                [appID, String(userBase + Int64(i)), granted, declined, t, t, t]
            }
            try await insert(
                "grants", ["app_id", "user_id", "granted", "declined", "created_at", "updated_at", "last_login_at"],
                rows)
        }

        var samples: [String] = []
        let expires = t + 60 * 86400
        let sink = tokenSink
        try await batches(total: options.tokens, size: 1000, label: "tokens") { range in
            var generator = SystemRandomNumberGenerator()
            var rows: [[any Encodable & Sendable]] = []
            rows.reserveCapacity(range.count)
            var texts: [String] = []
            texts.reserveCapacity(range.count)
            for i in range {
                let text = "EAAG" + Self.random(40, alphabet: Self.alphanumeric, using: &generator)
                if samples.count < options.sampleTokens { samples.append(text) }
                texts.append(text)
                let user = String(userBase + Int64(i % max(options.users, 1)))
                rows.append([UUID().uuidString, SecretHash.sha256Hex(text), "user", appID, user, t, expires, "bench"])
            }
            try sink?(texts)
            try await insert(
                "tokens", ["id", "token_hash", "kind", "app_id", "user_id", "issued_at", "expires_at", "origin"], rows)
        }

        var codes: [String] = [], openIDCodes: [String] = []
        try await batches(total: options.codes * 2, size: 1000, label: "codes") { range in
            var generator = SystemRandomNumberGenerator()
            var rows: [[any Encodable & Sendable]] = []
            for i in range {
                let text = "AQ" + Self.random(43, alphabet: Self.alphanumeric, using: &generator)
                let openID = i >= options.codes
                if openID { openIDCodes.append(text) } else { codes.append(text) }
                let user = String(userBase + Int64(i % max(options.users, 1)))
                let scopes = try SQLCodec.json(
                    openID ? ["public_profile", "email", "openid"] : ["public_profile", "email"])
                // A day, not ten minutes: seeding a million people takes longer than a code normally lives.
                rows.append([
                    UUID().uuidString, SecretHash.sha256Hex(text), appID, user, Self.redirectURI, scopes, t, t + 86400,
                ])
            }
            try await insert(
                "auth_codes",
                ["id", "code_hash", "app_id", "user_id", "redirect_uri", "scopes", "created_at", "expires_at"], rows)
        }

        let csrf = Self.random(43, alphabet: Self.alphanumeric, using: &rng)
        var sessions: [[String]] = []
        try await batches(total: max(1, min(options.sessions, options.users)), size: 1000, label: "sessions") {
            range in
            var generator = SystemRandomNumberGenerator()
            var rows: [[any Encodable & Sendable]] = []
            for i in range {
                let cookie = Self.random(43, alphabet: Self.alphanumeric, using: &generator)
                sessions.append([cookie, CSRFFormToken.bind(csrf, toSessionSecrets: [cookie])])
                rows.append([
                    UUID().uuidString, SecretHash.sha256Hex(cookie), String(userBase + Int64(i)), t, t + 30 * 86400, t,
                ])
            }
            try await insert(
                "browser_sessions", ["id", "secret_hash", "user_id", "created_at", "expires_at", "authenticated_at"],
                rows)
        }
        let cookie = sessions[0][0]
        if sqlite { try await db.raw("PRAGMA foreign_keys=ON").run() }
        return Output(
            app_id: appID, app_secret: secret, redirect_uri: Self.redirectURI, session_cookie: cookie,
            csrf_token: csrf, csrf_form_token: sessions[0][1], sessions: sessions,
            users: options.users, tokens: options.tokens,
            sample_tokens: samples, codes: codes, openid_codes: openIDCodes)
    }

    /// Runs `body` over `0..<total` in slices of `size`, a transaction per 20 slices, reporting progress.
    private func batches(total: Int, size: Int, label: String, _ body: (Range<Int>) async throws -> Void) async throws {
        guard total > 0 else { return }
        var start = 0
        // Wall-clock time on purpose: progress reports how long seeding really takes.
        let started = Date()
        while start < total {
            let groupEnd = min(total, start + size * 20)
            try await db.raw("BEGIN").run()
            do {
                var slice = start
                while slice < groupEnd {
                    let end = min(groupEnd, slice + size)
                    try await body(slice..<end)
                    slice = end
                }
                try await db.raw("COMMIT").run()
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
            start = groupEnd
            if start == total || start % (size * 200) == 0 {
                progress("\(label): \(start)/\(total) (\(Int(Date().timeIntervalSince(started)))s)")
            }
        }
    }

    private func insert(_ table: String, _ columns: [String], _ rows: [[any Encodable & Sendable]]) async throws {
        guard !rows.isEmpty else { return }
        let builder = db.insert(into: table).columns(columns)
        for row in rows { builder.values(row) }
        try await builder.run()
    }

    package static let alphanumeric = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    package static let hex = Array("0123456789abcdef".utf8)

    package static func random(_ count: Int, alphabet: [UInt8], using rng: inout some RandomNumberGenerator) -> String {
        String(unsafeUninitializedCapacity: count) { out in
            for i in 0..<count { out[i] = alphabet[Int(rng.next(upperBound: UInt(alphabet.count)))] }
            return count
        }
    }
}

extension SQLStorage {
    /// Opens (and migrates) the SQLite file and runs `body` on the raw database, for bulk tools like the bench seeder.
    package static func withSQLiteDatabase<T>(path: String, logger: Logger, _ body: (any SQLDatabase) async throws -> T)
        async throws -> T
    {
        let connection = try await SQLiteDatabaseFactory.open(path: path, logger: logger)
        let db = connection.sql(queryLogLevel: nil)
        do {
            try await migrate(db)
            let result = try await body(db)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
