import GatehouseCore
import GatehouseStorage
import Foundation
import Logging
import SQLKit

/// The cold `/me`'s database read, on the server's own storage: the caller's row (token, app, person, grant and
/// app-scoped id, 58 columns) read through `SQLCallerRecordStore` for tokens no cache has seen (issue 43 items
/// 2-3), and the same rows decoded by position (the server's path) against by name (SQLKit's `SQLRow`), in one
/// run so the ratio holds on a loaded machine.
package struct CallerRowProbe: Sendable {
    /// One measured variant: CPU and wall microseconds per read, over `reads` reads.
    package struct Row: Sendable {
        package var name: String
        package var cpuMicroseconds: Double
        package var wallMicroseconds: Double
        package var reads: Int
    }

    package let location: DatabaseLocation
    package let callers: Int
    package let iterations: Int
    package let logger: Logger

    package init(location: DatabaseLocation, callers: Int, iterations: Int, logger: Logger) {
        self.location = location
        self.callers = callers
        self.iterations = iterations
        self.logger = logger
    }

    package func run() async throws -> [Row] {
        let storage: Storage
        switch location {
        case .sqlite(let path): storage = try await SQLStorage.openSQLite(path: path, logger: logger)
        case .postgres(let url): storage = try await PostgresStorage.open(url: url, logger: logger)
        }
        do {
            let rows = try await measure(storage)
            try await storage.shutdown()
            return rows
        } catch {
            try? await storage.shutdown()
            throw error
        }
    }

    private func measure(_ storage: Storage) async throws -> [Row] {
        guard let store = storage.callerRecords as? SQLCallerRecordStore else {
            throw StorageError.unavailable("the caller store is not the SQL one")
        }
        let hashes = try await seed(storage)
        let db = store.context.db
        /// The row as the store reads it: the kept statement on SQLite, the prepared one on PostgreSQL.
        func row(_ hash: String) async throws -> any SQLRow {
            if let now = (db as? any SQLImmediateReads)?.rowsNow(SQLCallerRecordStore.query, [hash])?.first {
                return now
            }
            guard let row = try await db.rows(SQLCallerRecordStore.query.on(db, [hash])).first else {
                throw StorageError.unavailable("the probe's token has no row")
            }
            return row
        }
        let names = SQLCallerRecordStore.layout.selected
        func byName(_ row: any SQLRow) throws -> CallerRecords {
            try SQLCallerRecordStore.decode(cells: SQLNamedCells(row, names: names))
        }
        var fetched: [any SQLRow] = []
        for hash in hashes { fetched.append(try await row(hash)) }
        // Both decoders must agree before either is timed.
        for row in fetched {
            guard try SQLCallerRecordStore.decode(row).token == byName(row).token else {
                throw StorageError.unavailable("the decoders disagree")
            }
        }

        var next = 0
        func nextHash() -> String {
            next += 1
            return hashes[next % hashes.count]
        }
        func nextRow() -> any SQLRow {
            next += 1
            return fetched[next % fetched.count]
        }
        var results: [Row] = []
        results.append(
            try await time("read + decode by position (the store)") {
                _ = try await store.callerRecords(tokenHash: nextHash())
            })
        results.append(try await time("read + decode by name") { _ = try byName(try await row(nextHash())) })
        results.append(
            try await time("decode only, by position") { _ = try SQLCallerRecordStore.decode(nextRow()) })
        results.append(try await time("decode only, by name") { _ = try byName(nextRow()) })
        return results
    }

    private func time(_ name: String, _ body: () async throws -> Void) async throws -> Row {
        for _ in 0..<min(500, iterations) { try await body() }
        let clock = ContinuousClock()
        let (cpuStart, wallStart) = (ProcessCPUClock.nanoseconds(), clock.now)
        for _ in 0..<iterations { try await body() }
        let wall = clock.now - wallStart
        let cpu = Double(ProcessCPUClock.nanoseconds() - cpuStart)
        let wallNanoseconds = Double(wall.components.seconds) * 1e9 + Double(wall.components.attoseconds) / 1e9
        return Row(
            name: name, cpuMicroseconds: cpu / Double(iterations) / 1000,
            wallMicroseconds: wallNanoseconds / Double(iterations) / 1000, reads: iterations)
    }

    /// `callers` people of one app, each with a grant, an app-scoped id and a token; the tokens' hashes.
    private func seed(_ storage: Storage) async throws -> [String] {
        let run = UUID().uuidString.prefix(8).lowercased()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let app = AppRecord(
            id: String(Int.random(in: 900_000_000_000_000...999_999_999_999_999)), secret: "secret-\(run)",
            clientToken: "client-\(run)",
            name: "Caller row probe", redirectURIs: ["https://probe.example/cb"], requireAppSecret: true,
            approvedPermissions: ["user_birthday"], createdAt: now, jsSDKDomains: ["https://probe.example"])
        try await storage.apps.create(app)
        var hashes: [String] = []
        for n in 0..<max(callers, 64) {
            let user = UserRecord(
                id: "probe-\(run)-\(n)", email: "probe-\(run)-\(n)@example.com", passwordHash: "$2b$04$probe",
                firstName: "Probe", middleName: "M", lastName: "Person \(n)", birthday: "01/02/1990", gender: "female",
                link: "https://probe.example/\(n)", location: Place(id: "1", name: "Paris"), createdAt: now)
            try await storage.users.create(user)
            try await storage.grants.save(
                GrantRecord(
                    appID: app.id, userID: user.id, granted: ["public_profile", "email", "user_birthday"], declined: [],
                    createdAt: now, updatedAt: now, lastLoginAt: now))
            _ = try await storage.users.scopedID(appID: app.id, userID: user.id)
            let hash = "probe-\(run)-hash-\(n)"
            try await storage.tokens.insert(
                TokenRecord(
                    id: "probe-\(run)-t\(n)", tokenHash: hash, kind: .user, appID: app.id, userID: user.id,
                    issuedAt: now, expiresAt: now.addingTimeInterval(3600), origin: "dialog"))
            hashes.append(hash)
        }
        return hashes
    }
}
