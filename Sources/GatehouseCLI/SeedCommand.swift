import GatehouseBench
import GatehouseCore
import GatehouseStorage
import ArgumentParser
import Foundation
import GatehouseServer
import Logging

/// `gatehouse seed bench`: bulk data for `scripts/bench`.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed", abstract: "Create bulk data.", subcommands: [Bench.self])

    struct Bench: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Seed a benchmark app with N people, M tokens and unused codes; writes bench-seed.json (secrets inside: test data only)."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "People to create (each with a grant and an app-scoped id).") var users = 1000
        @Option(help: "User access tokens to create.") var tokens = 5000
        @Option(help: "Unused authorization codes (and as many with openid) for the code-exchange runs.") var codes = 0
        @Option(help: "Where to write the JSON the benchmark reads (default <data-dir>/bench-seed.json).") var out:
            String?
        @Option(
            name: .customLong("sample-tokens"), help: "Tokens listed in the JSON's sample_tokens (the hot working set)."
        )
        var sampleTokens = 1000
        @Option(
            name: .customLong("tokens-file"),
            help: "Also write every token, one a line in seeding order (the cold run's list).")
        var tokensFile: String?
        @Option(help: "Logged-in browser sessions, one for each of the first N people (the JSON's sessions).")
        var sessions = 1

        func execute() async throws {
            guard users >= 1, tokens >= 0, codes >= 0, sampleTokens >= 0, (1...users).contains(sessions) else {
                throw fail(
                    "--users must be at least 1; --tokens, --codes and --sample-tokens not negative; --sessions from 1 to --users"
                )
            }
            let tokenLines = try tokensFile.map { path -> FileHandle in
                guard
                    FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                    let handle = FileHandle(forWritingAtPath: path)
                else { throw fail("cannot write \(path)") }
                return handle
            }
            defer { try? tokenLines?.close() }
            var logger = Logger(label: "gatehouse.seed")
            logger.logLevel = .warning
            let location =
                try data.resolvedDatabase()
                ?? .sqlite(path: (data.resolved as NSString).appendingPathComponent("gatehouse.sqlite"))
            let hash = try await BcryptPasswordHasher(cost: 10).hash("bench-password")
            let started = Date()
            // `withSQLiteDatabase` for SQLite (the same open and migrate), one connection for PostgreSQL.
            let output = try await BenchDatabase.with(location, logger: logger) { db in
                var seeder = BenchSeeder(db: db, passwordHash: hash) { line in
                    FileHandle.standardError.write(Data("seed: \(line)\n".utf8))
                }
                if let tokenLines {
                    let handle = UncheckedFileHandle(handle: tokenLines)
                    seeder.tokenSink = { texts in
                        try handle.handle.write(contentsOf: Data((texts.joined(separator: "\n") + "\n").utf8))
                    }
                }
                return try await seeder.seed(
                    .init(
                        users: users, tokens: tokens, codes: codes, sampleTokens: sampleTokens, sessions: sessions))
            }
            let target = out ?? (data.resolved as NSString).appendingPathComponent("bench-seed.json")
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent.isEmpty
                    ? "." : (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(output).write(to: URL(fileURLWithPath: target))
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
            print(
                "Seeded \(users) people, \(tokens) tokens, \(codes * 2) codes for app \(output.app_id) in "
                    + "\(Int(Date().timeIntervalSince(started)))s; details in \(target)"
            )
        }
    }
}

/// The token file's handle, written only from the seeder's one task, in order.
private struct UncheckedFileHandle: @unchecked Sendable {
    let handle: FileHandle
}
