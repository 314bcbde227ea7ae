import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import Logging
import Testing
import HTTPTypes
import NIOFoundationEssentialsCompat

/// Issue 12, finding 15: a copy of the database (or of an export) does not hand over the id_token signing keys.
@Suite struct SecretsAtRestTests {
    static let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }

    @Test func signingKeysAreSealedInTheDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-sealed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("master.key").path
        try Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString().write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        var configuration = GatehouseConfiguration(dataDirectory: directory.path, mode: .production)
        configuration.masterKeyFile = keyFile
        let services = try await GatehouseServerRunner.services(configuration: configuration, logger: Self.quiet)
        let active = try await services.keyRing.activeKey()
        #expect(active.privateKeyPEM.hasPrefix("-----BEGIN"))
        let master = try await services.storage.serverKeys.key(named: "token_cache_master_v1") {
            Array(repeating: 9, count: 32)
        }
        #expect(master == Array(repeating: 9, count: 32))
        _ = try await services.keyRing.sign(
            IDTokenClaims(iss: "x", aud: "y", sub: "1", iat: 0, exp: 1, jti: "j", nonce: nil))
        try await services.storage.shutdown()

        // What the database itself holds.
        let raw = try await SQLStorage.openSQLite(path: configuration.databasePath, logger: Self.quiet)
        let stored = try #require(try await raw.signingKeys.all().first)
        #expect(stored.privateKeyPEM.hasPrefix("gatehouse-sealed:v1:"))
        #expect(!stored.privateKeyPEM.contains("PRIVATE KEY"))
        let storedMaster = try await raw.serverKeys.key(named: "token_cache_master_v1") { [] }
        #expect(storedMaster.starts(with: Array("GHS1".utf8)))
        #expect(storedMaster != master)
        try await raw.shutdown()
    }

    @Test func aMasterKeyFileThatIsNot32BytesIsRefusedByName() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("short-\(UUID().uuidString).key").path
        try "too short".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            throws: ConfigurationError(
                "master_key_file \(path) must hold 32 bytes (raw, base64 or 64 hex digits); make one with `openssl rand -base64 32`"
            )
        ) {
            _ = try SecretSealer.load(path: path)
        }
    }

    @Test func exportLeavesPrivateKeysOutUnlessAsked() async throws {
        let server = try await TestServer.make()
        _ = try await server.services.keyRing.activeKey()
        try await server.run { client in
            let plain = try await client.execute(uri: "/admin/api/v1/state", method: .get)
            #expect(plain.status == .ok)
            #expect(!plain.text.contains("PRIVATE KEY"))
            let state = try StateTransfer.decode(Data(buffer: plain.body))
            #expect(state.signingKeys.count == 1)
            #expect(state.signingKeys.first?.privateKeyPEM == "")
            let full = try await client.execute(uri: "/admin/api/v1/state?include_private_keys=true", method: .get)
            #expect(full.text.contains("PRIVATE KEY"))
        }
    }
}
