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
            abstract: "Seed a benchmark app with N people, M tokens and unused codes; writes bench-seed.json (secrets inside: test data only).")
        @OptionGroup var data: DataOptions
        @Option(help: "People to create (each with a grant and an app-scoped id).") var users = 1000
        @Option(help: "User access tokens to create.") var tokens = 5000
        @Option(help: "Unused authorization codes (and as many with openid) for the code-exchange runs.") var codes = 0
        @Option(help: "Where to write the JSON the benchmark reads (default <data-dir>/bench-seed.json).") var out: String?

        func execute() async throws {
            guard users >= 1, tokens >= 0, codes >= 0 else { throw fail("--users must be at least 1; --tokens and --codes not negative") }
            var logger = Logger(label: "gatehouse.seed")
            logger.logLevel = .warning
            let path = (data.resolved as NSString).appendingPathComponent("gatehouse.sqlite")
            let hash = try await BcryptPasswordHasher(cost: 10).hash("bench-password")
            let started = Date()
            let output = try await SQLStorage.withSQLiteDatabase(path: path, logger: logger) { db in
                try await BenchSeeder(db: db, passwordHash: hash) { line in
                    FileHandle.standardError.write(Data("seed: \(line)\n".utf8))
                }.seed(.init(users: users, tokens: tokens, codes: codes))
            }
            let target = out ?? (data.resolved as NSString).appendingPathComponent("bench-seed.json")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(output).write(to: URL(fileURLWithPath: target))
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
            print("Seeded \(users) people, \(tokens) tokens, \(codes * 2) codes for app \(output.app_id) in \(Int(Date().timeIntervalSince(started)))s; details in \(target)")
        }
    }
}
