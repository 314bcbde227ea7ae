import Foundation
import GatehouseCore
import GatehouseStorage
import Testing
import GatehouseTestSupport

@Suite struct StorageSigningKeyContractTests {
    @Test func keysRoundTripInOrderAndRetireOnce() async throws {
        try await withEachBackend { storage in
            let a = SigningKeyRecord(
                kid: "a", privateKeyPEM: "pem-a", certificatePEM: "cert-a", createdAt: Date(timeIntervalSince1970: 100))
            let b = SigningKeyRecord(
                kid: "b", privateKeyPEM: "pem-b", certificatePEM: "cert-b", createdAt: Date(timeIntervalSince1970: 100))
            try await storage.signingKeys.insert(a)
            try await storage.signingKeys.insert(b)
            #expect(try await storage.signingKeys.all() == [a, b])
            await #expect(throws: StorageError.conflict("kid")) { try await storage.signingKeys.insert(a) }
            try await storage.signingKeys.retire(
                kid: "a", at: Date(timeIntervalSince1970: 200), publishUntil: Date(timeIntervalSince1970: 300))
            try await storage.signingKeys.retire(
                kid: "a", at: Date(timeIntervalSince1970: 250), publishUntil: Date(timeIntervalSince1970: 999))
            try await storage.signingKeys.retire(kid: "unknown", at: Date(), publishUntil: Date())
            let keys = try await storage.signingKeys.all()
            #expect(keys[0].retiredAt == Date(timeIntervalSince1970: 200))
            #expect(keys[0].publishUntil == Date(timeIntervalSince1970: 300))
            #expect(keys[1].retiredAt == nil)
        }
    }
}
