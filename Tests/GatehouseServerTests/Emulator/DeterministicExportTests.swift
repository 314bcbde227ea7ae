import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Logging
import Testing

/// With the clock fixed and the random source seeded, nothing else in the server picks a value: the same
/// steps give the same state, byte for byte.
@Suite struct DeterministicExportTests {
    /// bcrypt salts come from the library's own generator, so this seam gets a plain, repeatable stand-in.
    struct RepeatableHasher: PasswordHasher {
        func hash(_ password: String) async throws -> String { "sha256:" + SecretHash.sha256Hex(password) }
        func verify(_ password: String, hash: String) async throws -> Bool { try await self.hash(password) == hash }
        func dummyHash() async throws -> String { "sha256:none" }
    }

    /// Seeds, makes a second app and person, logs them in, injects an error, and exports.
    static func run(seed: UInt64) async throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-determinism-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let configuration = GatehouseConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path, publicURL: "http://gatehouse.test",
            mode: .development)
        let clock = AdjustableClock(fixed: Date(timeIntervalSince1970: 1_800_000_000))
        let random = SeededRandomSource(seed: seed)
        let storage = try await configuration.databaseLocation.open(logger: logger, random: random, clock: clock)
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: clock, random: random, passwords: RepeatableHasher(),
            logger: logger, clockControl: clock)
        do {
            let seedFile = try #require(try await DevSeeder(services: services).seedIfNeeded())
            let shop = try await services.accounts.createApp(
                name: "Shop", redirectURIs: ["https://shop.example/cb"], approvedPermissions: ["email"])
            let dana = try await services.accounts.createUser(
                NewUser(email: "dana@example.com", password: "dana-password", firstName: "Dana", lastName: "Diaz"))
            clock.advance(by: 90)
            for (app, userID) in [(shop, dana.id), (shop, seedFile.users[0].id)] {
                let now = clock.now()
                try await storage.grants.save(
                    GrantRecord(
                        appID: app.id, userID: userID, granted: ["public_profile", "email"], declined: [],
                        createdAt: now, updatedAt: now, lastLoginAt: now))
                _ = try await services.tokens.mintUserToken(
                    app: app, userID: userID, lifetime: Lifetimes.longLivedToken, origin: "test")
                _ = try await storage.users.scopedID(appID: app.id, userID: userID)
            }
            _ = try await ErrorInjector(services: services).add(
                kind: .user, target: dana.id, error: "190/460", times: 2)
            _ = try await ClockControl(services: services).advance(by: 3600)
            let exported = try EmulatorState.encoder.encode(try await StateTransfer(services: services).export())
            try await storage.shutdown()
            return exported
        } catch {
            try? await storage.shutdown()
            throw error
        }
    }

    @Test func aFixedClockAndSeededRandomnessExportTheSameBytesTwice() async throws {
        let first = try await Self.run(seed: 2026)
        let second = try await Self.run(seed: 2026)
        #expect(first == second)
        // The export holds what the steps made (so equal bytes are not two empty documents) …
        let state = try JSONDecoder().decode(JSONValue.self, from: first)
        #expect(state["apps"]?.arrayValue?.count == 2)
        #expect(state["users"]?.arrayValue?.count == 4)
        #expect(state["tokens"]?.arrayValue?.count == 2)
        #expect(state["injectedErrors"]?.arrayValue?.count == 1)
        // … and another seed gives other ids.
        #expect(try await Self.run(seed: 2027) != first)
    }
}
