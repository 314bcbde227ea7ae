import Foundation
import GatehouseCore
import GatehouseStorage
import Logging
import Testing

/// Issue 43, item 1: a management command on the database may be working on a production server's, so the
/// passwords it sets are hashed at production's cost unless `GATEHOUSE_PASSWORD_COST` asks otherwise.
@Suite struct CLIPasswordCostTests {
    @Test func managementCommandsHashAtProductionsCostUnlessTold() async throws {
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let person = ["users", "create", "--first-name", "Cy", "--last-name", "Cost", "--data-dir", dir]
        let strong = try await CLIProcess.run(person + ["--email", "cy@example.com", "--password", "cy-password"])
        #expect(strong.status == 0, "\(strong.stderr)")
        let admin = try await CLIProcess.run(
            ["admin", "create", "--email", "ops@example.com", "--password-stdin", "--data-dir", dir],
            input: "a long admin password\n")
        #expect(admin.status == 0, "\(admin.stderr)")
        let told = try await CLIProcess.run(
            person + ["--email", "lo@example.com", "--password", "lo-password"],
            environment: ["GATEHOUSE_PASSWORD_COST": "4"])
        #expect(told.status == 0, "\(told.stderr)")
        let refused = try await CLIProcess.run(
            person + ["--email", "no@example.com", "--password", "no-password"],
            environment: ["GATEHOUSE_PASSWORD_COST": "3"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("must be auto or a bcrypt cost from 4 to 31, not 3"))

        let storage = try await SQLStorage.openSQLite(
            path: (dir as NSString).appendingPathComponent("gatehouse.sqlite"),
            logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
        let cy = try await storage.users.find(email: "cy@example.com")
        let ops = try await storage.admins.find(email: "ops@example.com")
        let lo = try await storage.users.find(email: "lo@example.com")
        let no = try await storage.users.find(email: "no@example.com")
        try await storage.shutdown()
        #expect(PasswordCost.of(cy?.passwordHash ?? "") == 11)
        #expect(PasswordCost.of(ops?.passwordHash ?? "") == 11)
        #expect(PasswordCost.of(lo?.passwordHash ?? "") == 4)
        #expect(no == nil)
    }
}
