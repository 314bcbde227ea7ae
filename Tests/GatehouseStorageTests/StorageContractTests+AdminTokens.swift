import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Contract tests for admin API tokens and the audit log (migration 11), on every backend.
@Suite("Storage contract: admin tokens and audit log")
struct StorageAdminTokenContractTests {
    @Test func tokensAreFoundByHashListedInOrderAndRevokedOnce() async throws {
        try await withEachBackend { storage in
            let ci = AdminTokenRecord(
                id: "t1", name: "ci", displayPrefix: "gha_AAAAAAAA", tokenHash: "hash-1", readOnly: false,
                createdAt: TestTime.at(10))
            let ro = AdminTokenRecord(
                id: "t2", name: "dashboard", displayPrefix: "gha_BBBBBBBB", tokenHash: "hash-2", readOnly: true,
                createdAt: TestTime.at(20))
            try await storage.admins.insertToken(ci)
            try await storage.admins.insertToken(ro)
            #expect(try await storage.admins.findToken(hash: "hash-2") == ro)
            #expect(try await storage.admins.findToken(hash: "nope") == nil)
            #expect(try await storage.admins.listTokens() == [ci, ro])
            await #expect(throws: StorageError.self) {
                try await storage.admins.insertToken(
                    AdminTokenRecord(
                        id: "t3", name: "dup", displayPrefix: "x", tokenHash: "hash-1", readOnly: false,
                        createdAt: TestTime.at(30)))
            }
            #expect(try await storage.admins.revokeToken(id: "t1", at: TestTime.at(40)))
            #expect(try await storage.admins.revokeToken(id: "t1", at: TestTime.at(50)) == false)
            #expect(try await storage.admins.revokeToken(id: "unknown", at: TestTime.at(50)) == false)
            #expect(try await storage.admins.findToken(hash: "hash-1")?.revokedAt == TestTime.at(40))
        }
    }

    @Test func auditEntriesArePagedNewestFirst() async throws {
        try await withEachBackend { storage in
            for i in 1...5 {
                try await storage.admins.appendAudit(
                    AuditEntryRecord(
                        time: TestTime.at(TimeInterval(i)), actorKind: "token", actorID: "t1", actorName: "ci",
                        method: "POST",
                        route: "/admin/api/v1/apps", target: i == 3 ? nil : "app-\(i)", status: 201))
            }
            let first = try await storage.admins.audit(before: nil, limit: 2)
            #expect(first.map(\.sequence) == [5, 4])
            #expect(first.first?.target == "app-5")
            #expect(first.first?.time == TestTime.at(5))
            let rest = try await storage.admins.audit(before: 4, limit: 10)
            #expect(rest.map(\.sequence) == [3, 2, 1])
            #expect(rest.first?.target == nil)
            #expect(rest.first?.actorName == "ci")
        }
    }
}
