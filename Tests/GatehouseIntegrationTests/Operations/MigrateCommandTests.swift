import ChildProcesses
import Foundation
import Testing
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import GatehouseTestSupport

/// `gatehouse migrate` and `--database` as an operator uses them, on both backends.
@Suite("gatehouse migrate and --database", .tags(.process))
struct MigrateCommandTests {
    /// Runs the built binary to completion (off the cooperative pool).
    func gatehouse(_ arguments: [String]) async throws -> (status: Int32, text: String) {
        try await Shell.run(ServedGatehouse.binary, arguments)
    }

    var versions: [Int] { SQLMigrator.all.map(\.version).sorted() }

    @Test func migrateAppliesOnceAndReportsVersionsOnPostgres() async throws {
        let url = try await PostgresTestDatabase.create()
        let first = try await gatehouse(["migrate", "--database", url, "--json"])
        #expect(first.status == 0, "\(first.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.text.utf8)) as? [String: Any])
        #expect(json["applied"] as? [Int] == versions)
        #expect(json["versions"] as? [Int] == versions)
        #expect(json["latest"] as? Int == SQLStorage.latestMigration)
        #expect((json["database"] as? String)?.hasPrefix("PostgreSQL postgres://") == true)

        let again = try await gatehouse(["migrate", "--database", url])
        #expect(again.status == 0)
        #expect(again.text.contains("Applied now: nothing (already up to date)"), "\(again.text)")
        #expect(again.text.contains("Versions:    \(versions.map(String.init).joined(separator: ", "))"))
        try await PostgresTestDatabase.drop(url)
    }

    @Test func migrateOnSQLiteUsesTheDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-migrate-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await gatehouse(["migrate", "--data-dir", directory])
        #expect(result.status == 0, "\(result.text)")
        #expect(result.text.contains("Database: SQLite \(directory)/gatehouse.sqlite"))
        #expect(result.text.contains("Applied now: \(versions.map(String.init).joined(separator: ", "))"))
    }

    @Test func unreachableOrInvalidDatabasesFailPlainlyWithoutPasswords() async throws {
        let port = try FreeTCPPort.find()
        let url = "postgres://gatehouse:hunter2@127.0.0.1:\(port)/gatehouse?sslmode=disable"
        for arguments in [
            ["migrate", "--database", url], ["serve", "--port", "0", "--database", url],
            ["apps", "list", "--database", url],
        ] {
            let result = try await gatehouse(arguments)
            #expect(result.status == 1, "\(arguments[0]): \(result.text)")
            #expect(result.text.contains("gatehouse: "), "\(result.text)")
            #expect(result.text.contains("PostgreSQL is unreachable"), "\(arguments[0]): \(result.text)")
            #expect(!result.text.contains("hunter2"))
        }
        let scheme = try await gatehouse(["migrate", "--database", "mysql://root:hunter2@localhost/db"])
        #expect(scheme.status == 1)
        #expect(scheme.text.contains("unsupported database URL scheme"))
        #expect(!scheme.text.contains("hunter2"))
    }
}
