import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 43: the development seed's passwords are hashed once per process for each hasher cost, not at every reset
/// to the seed; the people it makes still log in with the published passwords.
@Suite struct SeedPasswordHashesTests {
    /// bcrypt at cost 4 that counts its hashes; its own reuse key keeps it apart from every other test's hashers.
    final class HashCountingHasher: PasswordHasher, @unchecked Sendable {
        private let inner = BcryptPasswordHasher(cost: 4)
        private let count = LockedValue(0)
        let reuseKey: String?

        init(reuseKey: String? = "counting-\(UUID().uuidString)") { self.reuseKey = reuseKey }

        var hashes: Int { count.withLockedValue { $0 } }

        func hash(_ password: String) async throws -> String {
            count.withLockedValue { $0 += 1 }
            return try await inner.hash(password)
        }

        func verify(_ password: String, hash: String) async throws -> Bool {
            try await inner.verify(password, hash: hash)
        }
    }

    @Test func aHashIsMadeOnceForEachReuseKeyAndNeverWithoutOne() async throws {
        let hashes = SeedPasswordHashes()
        let first = HashCountingHasher(reuseKey: "k")
        let made = try await hashes.hash("alice-gatehouse", with: first)
        #expect(try await hashes.hash("alice-gatehouse", with: first) == made)
        #expect(first.hashes == 1)
        let sameKey = HashCountingHasher(reuseKey: "k")
        #expect(try await hashes.hash("alice-gatehouse", with: sameKey) == made)
        #expect(sameKey.hashes == 0)
        #expect(try await sameKey.verify("alice-gatehouse", hash: made))

        _ = try await hashes.hash("bob-gatehouse", with: first)
        #expect(first.hashes == 2, "another password is another hash")
        let otherKey = HashCountingHasher(reuseKey: "other")
        #expect(try await hashes.hash("alice-gatehouse", with: otherKey) != made)
        #expect(otherKey.hashes == 1)
        let noKey = HashCountingHasher(reuseKey: nil)
        _ = try await hashes.hash("alice-gatehouse", with: noKey)
        _ = try await hashes.hash("alice-gatehouse", with: noKey)
        #expect(noKey.hashes == 2, "a hasher without a reuse key hashes every time")
    }

    /// bcrypt's key is its cost, so development's hashes never stand in for production's (or the reverse).
    @Test func bcryptHashersShareOnlyWithTheirOwnCost() {
        #expect(BcryptPasswordHasher(cost: 4).reuseKey == "bcrypt-4")
        #expect(BcryptPasswordHasher(cost: 4).reuseKey == BcryptPasswordHasher(cost: 4).reuseKey)
        #expect(BcryptPasswordHasher().reuseKey == "bcrypt-\(PasswordCost.production)")
    }

    @Test func aSecondResetToTheSeedHashesNothingAndItsPeopleLogInWithTheSeedPasswords() async throws {
        let hasher = HashCountingHasher()
        let server = try await TestServer.make(passwords: hasher)
        let before = hasher.hashes
        try await server.v1 { api in
            let first = try await api.post("/state/reset", #"{"to":"seed"}"#)
            #expect(first.status == .ok)
            #expect(hasher.hashes == before + 3)
            let aliceHash = try await server.services.storage.users.find(email: "alice@gatehouse.test")?.passwordHash

            let second = try await api.post("/state/reset", #"{"to":"seed"}"#)
            #expect(second.status == .ok)
            #expect(hasher.hashes == before + 3, "the second reset reuses the first one's hashes")
            let alice = try #require(try await server.services.storage.users.find(email: "alice@gatehouse.test"))
            #expect(alice.passwordHash == aliceHash)

            let appID = try #require(second.json["seed"]?["app"]?["id"]?.stringValue)
            let people = try #require(second.json["seed"]?["users"]?.arrayValue)
            #expect(
                people.compactMap { $0["password"]?.stringValue } == [
                    "alice-gatehouse", "bob-gatehouse", "carol-gatehouse",
                ])
            for person in people {
                let browser = Browser(api.client)
                let location = try await browser.logIn(
                    query: FormEncoding.encode([
                        ("client_id", appID), ("redirect_uri", "http://127.0.0.1/callback"), ("scope", "email"),
                    ]),
                    email: person["email"]?.stringValue ?? "", password: person["password"]?.stringValue ?? "")
                #expect(location.hasPrefix("http://127.0.0.1/callback?"))
                #expect(redirectParameters(location)["code"] != nil)
            }
        }
    }
}
