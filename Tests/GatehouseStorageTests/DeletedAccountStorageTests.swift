import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// What deleted accounts leave (migration 18), on both backends: found until its time, kept once, then forgotten.
@Suite struct DeletedAccountStorageTests {
    @Test func leftoversAreFoundUntilTheirTimeKeptOnceAndForgotten() async throws {
        try await withEachBackend { storage in
            let store = try #require(storage.deletedAccounts)
            let token = DeletedAccountRecord(
                key: "token:abc", appID: "42", deletedAt: TestTime.at(10), forgetAt: TestTime.at(100))
            let address = DeletedAccountRecord(
                key: "email:def", appID: nil, deletedAt: TestTime.at(10), forgetAt: TestTime.at(1000))
            try await store.remember([token, address])
            // A key already stored keeps its first row.
            try await store.remember([
                DeletedAccountRecord(
                    key: "token:abc", appID: "7", deletedAt: TestTime.at(20), forgetAt: TestTime.at(200))
            ])
            #expect(try await store.find(key: "token:abc", now: TestTime.at(50)) == token)
            #expect(try await store.find(key: "email:def", now: TestTime.at(50)) == address)
            #expect(try await store.find(key: "token:abc", now: TestTime.at(100)) == nil)
            #expect(try await store.find(key: "token:zzz", now: TestTime.at(50)) == nil)
            #expect(try await store.forget(before: TestTime.at(100)) == 1)
            #expect(try await store.find(key: "token:abc", now: TestTime.at(0)) == nil)
            #expect(try await store.find(key: "email:def", now: TestTime.at(0)) == address)
            try await store.remember([])
        }
    }
}
