import Foundation
import GatehouseCore
import GatehouseStorage
import Testing
import GatehouseTestSupport

/// Contract tests for the issue-7 stores: device codes, token cache slots, server keys, the callback outbox.
@Suite struct StorageRemoteContractTests {
    @Test func deviceCodesRoundTripAndUpdateOnlyFromTheExpectedState() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            try await storage.users.create(Fixture.user("1"))
            let code = DeviceCodeRecord(
                id: "d1", codeHash: "h1", userCode: "ABCDEFGH", appID: "100000000000001",
                scopes: ["public_profile", "email"],
                createdAt: TestTime.base, expiresAt: TestTime.at(420), interval: 5)
            try await storage.deviceCodes.insert(code)
            #expect(try await storage.deviceCodes.find(codeHash: "h1") == code)
            #expect(try await storage.deviceCodes.find(userCode: "ABCDEFGH") == code)
            await #expect(throws: StorageError.self) { try await storage.deviceCodes.insert(code) }

            var polled = code
            polled.lastPolledAt = TestTime.at(5)
            #expect(try await storage.deviceCodes.update(polled, expecting: .pending, expectedPolledAt: nil))
            // A racing poll that read the old row loses.
            #expect(try await !storage.deviceCodes.update(polled, expecting: .pending, expectedPolledAt: nil))
            var approved = polled
            approved.status = .approved
            approved.userID = "1"
            approved.decidedAt = TestTime.at(6)
            #expect(
                try await storage.deviceCodes.update(approved, expecting: .pending, expectedPolledAt: TestTime.at(5)))
            #expect(
                try await !storage.deviceCodes.update(approved, expecting: .pending, expectedPolledAt: TestTime.at(5)))
            #expect(try await storage.deviceCodes.find(codeHash: "h1") == approved)
        }
    }

    @Test func tokenCacheSlotsUpsertAndDelete() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            let slot = TokenCacheSlotRecord(
                appID: "100000000000001", slot: "s", sealed: "one", updatedAt: TestTime.base)
            try await storage.tokenCache.put(slot)
            var newer = slot
            newer.sealed = "two"
            newer.updatedAt = TestTime.at(1)
            try await storage.tokenCache.put(newer)
            #expect(try await storage.tokenCache.find(appID: slot.appID, slot: "s") == newer)
            #expect(try await storage.tokenCache.find(appID: "other", slot: "s") == nil)
            #expect(try await storage.tokenCache.delete(appID: slot.appID, slot: "s"))
            #expect(try await !storage.tokenCache.delete(appID: slot.appID, slot: "s"))
        }
    }

    @Test func serverKeysAreCreatedOnceEvenWhenRacing() async throws {
        try await withEachBackend { storage in
            let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for i in 0..<4 {
                    group.addTask {
                        try await storage.serverKeys.key(named: "k") { [UInt8](repeating: UInt8(i), count: 32) }
                    }
                }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(keys.map { $0 }).count == 1)
            #expect(try await storage.serverKeys.key(named: "k") { [9] } == keys[0])
        }
    }

    @Test func callbacksAreDueClaimedOnceAndListed() async throws {
        try await withEachBackend { storage in
            try await storage.apps.create(Fixture.app())
            let a = AppCallbackRecord(
                id: "c1", appID: "100000000000001", kind: .dataDeletion, userID: "u1", url: "http://x/cb",
                body: "signed_request=x",
                nextAttemptAt: TestTime.base, createdAt: TestTime.base)
            var b = a
            b.id = "c2"
            b.kind = .deauthorize
            b.nextAttemptAt = TestTime.at(60)
            try await storage.appCallbacks.insert(a)
            try await storage.appCallbacks.insert(b)
            #expect(try await storage.appCallbacks.due(now: TestTime.at(10), limit: 10).map(\.id) == ["c1"])
            #expect(
                try await storage.appCallbacks.claim(
                    id: "c1", expectedNextAttemptAt: TestTime.base, leaseUntil: TestTime.at(120)))
            #expect(
                try await !storage.appCallbacks.claim(
                    id: "c1", expectedNextAttemptAt: TestTime.base, leaseUntil: TestTime.at(120)))
            #expect(try await storage.appCallbacks.due(now: TestTime.at(61), limit: 10).map(\.id) == ["c2"])
            var delivered = a
            delivered.attempts = 1
            delivered.nextAttemptAt = nil
            delivered.deliveredAt = TestTime.at(11)
            delivered.confirmationCode = "C"
            delivered.statusURL = "https://x/s"
            try await storage.appCallbacks.update(delivered)
            #expect(try await storage.appCallbacks.find(id: "c1") == delivered)
            #expect(try await storage.appCallbacks.list(userID: "u1", kind: .dataDeletion) == [delivered])
            #expect(try await storage.appCallbacks.due(now: TestTime.at(1000), limit: 10).map(\.id) == ["c2"])
            var ghost = a
            ghost.id = "nope"
            await #expect(throws: StorageError.notFound) { try await storage.appCallbacks.update(ghost) }
        }
    }
}
