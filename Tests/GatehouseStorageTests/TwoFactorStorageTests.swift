import Foundation
import SQLKit
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// Second factors, recovery codes and session activity (migration 16) on both backends.
@Suite struct TwoFactorStorageTests {
    @Test func aSecondFactorRoundTripsAndEachStepAndRecoveryCodeIsGoodOnce() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.twoFactor)
            try await storage.users.create(Fixture.user("1"))
            #expect(try await store.find(userID: "1") == nil)
            var record = TwoFactorRecord(userID: "1", secret: "MZXW6YTBOI", createdAt: TestTime.at(0))
            try await store.save(record)
            #expect(try await store.find(userID: "1") == record)
            record.confirmedAt = TestTime.at(10)
            record.lastUsedStep = 5
            try await store.save(record)
            #expect(try await store.find(userID: "1") == record)
            // Steps only move forward, and two callers with the same step: one wins.
            #expect(try await store.useStep(userID: "1", step: 5) == false)
            #expect(try await store.useStep(userID: "1", step: 4) == false)
            #expect(try await store.useStep(userID: "1", step: 6) == true)
            #expect(try await store.useStep(userID: "1", step: 6) == false)
            #expect(try await store.find(userID: "1")?.lastUsedStep == 6)
            try await store.replaceRecoveryCodes(userID: "1", hashes: ["h1", "h2"])
            #expect(try await store.recoveryCodesLeft(userID: "1") == 2)
            #expect(try await store.useRecoveryCode(userID: "1", hash: "h1") == true)
            #expect(try await store.useRecoveryCode(userID: "1", hash: "h1") == false)
            #expect(try await store.recoveryCodesLeft(userID: "1") == 1)
            try await store.replaceRecoveryCodes(userID: "1", hashes: ["h3"])
            #expect(try await store.useRecoveryCode(userID: "1", hash: "h2") == false)
            // Deleting the person takes the second factor and its codes along.
            try await storage.users.delete(id: "1")
            #expect(try await store.find(userID: "1") == nil)
            #expect(try await store.recoveryCodesLeft(userID: "1") == 0)
        }
    }

    @Test func aFreshFirstStepIsAcceptedAndDeleteRemovesEverything() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.twoFactor)
            try await storage.users.create(Fixture.user("1"))
            try await store.save(
                TwoFactorRecord(
                    userID: "1", secret: "MZXW6YTBOI", createdAt: TestTime.at(0), confirmedAt: TestTime.at(0)))
            #expect(try await store.useStep(userID: "1", step: 1) == true)
            try await store.replaceRecoveryCodes(userID: "1", hashes: ["h1"])
            try await store.delete(userID: "1")
            #expect(try await store.find(userID: "1") == nil)
            #expect(try await store.recoveryCodesLeft(userID: "1") == 0)
        }
    }

    @Test func sessionActivityIsListedPerPersonAndGoesWithTheSession() async throws {
        try await withEachBackend { storage in
            let activity = try #require(storage.sessionActivity)
            try await storage.users.create(Fixture.user("1"))
            for (id, at) in [("s1", 0.0), ("s2", 100.0)] {
                try await storage.sessions.insert(
                    BrowserSessionRecord(
                        id: id, secretHash: "secret-\(id)", userID: "1", createdAt: TestTime.at(at),
                        expiresAt: TestTime.at(3600), authenticatedAt: TestTime.at(at)))
            }
            try await activity.touch(sessionID: "s1", userAgent: "Firefox/1", ip: "192.0.2.1", at: TestTime.at(200))
            try await activity.touch(sessionID: "s1", userAgent: "Firefox/2", ip: "192.0.2.2", at: TestTime.at(300))
            try await activity.touch(sessionID: "missing", userAgent: nil, ip: nil, at: TestTime.at(300))
            let listed = try await activity.list(userID: "1")
            #expect(listed.map(\.session.id) == ["s1", "s2"])
            #expect(
                listed[0].userAgent == "Firefox/2" && listed[0].ip == "192.0.2.2"
                    && listed[0].lastUsedAt == TestTime.at(300))
            #expect(listed[1].userAgent == nil && listed[1].lastUsedAt == nil)
            try await storage.sessions.delete(id: "s1")
            #expect(try await activity.list(userID: "1").map(\.session.id) == ["s2"])
        }
    }
}
