import Foundation
import Logging
import NIOPosix
import PostgresKit
import Testing

/// Databases on the throwaway PostgreSQL cluster that `scripts/test` starts (`GATEHOUSE_TEST_POSTGRES_URL`).
///
/// Every test gets a database of its own (`CREATE DATABASE`), so tests stay independent and may run in
/// parallel; `LISTEN`/`NOTIFY` channels are per database too. Without the variable the tests needing
/// PostgreSQL fail: they never skip themselves into green.
package enum PostgresTestDatabase {
    package static let variable = "GATEHOUSE_TEST_POSTGRES_URL"

    package struct Missing: Error, CustomStringConvertible {
        package var description: String {
            "\(PostgresTestDatabase.variable) is not set: run the suite with ./scripts/test, which starts a throwaway PostgreSQL cluster"
        }
    }

    /// The cluster's admin URL (its `postgres` database).
    package static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { throw Missing() }
        return url
    }

    package static let logger: Logger = {
        var logger = Logger(label: "gatehouse.tests.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Creates an empty database and returns its URL.
    package static func create() async throws -> String {
        let admin = try adminURL()
        let name = "gh_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await withAdminConnection(admin) { db in
            try await db.raw("CREATE DATABASE \(ident: name)").run()
        }
        return url(admin, database: name)
    }

    /// Drops the database behind `url`, disconnecting anyone still connected.
    package static func drop(_ url: String) async throws {
        let admin = try adminURL()
        let name = URL(string: url)?.lastPathComponent ?? ""
        guard name.hasPrefix("gh_") else { return }
        try await withAdminConnection(admin) { db in
            try await db.raw("DROP DATABASE IF EXISTS \(ident: name) WITH (FORCE)").run()
        }
    }

    /// `admin` with its database replaced by `database`.
    package static func url(_ admin: String, database: String) -> String {
        var components = URLComponents(string: admin)!
        components.path = "/" + database
        return components.string!
    }

    package static func withAdminConnection(_ url: String, _ body: (any SQLDatabase) async throws -> Void) async throws
    {
        let configuration = try SQLPostgresConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration.coreConfiguration, id: 0,
            logger: logger)
        do {
            try await body(connection.sql(queryLogLevel: nil))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
