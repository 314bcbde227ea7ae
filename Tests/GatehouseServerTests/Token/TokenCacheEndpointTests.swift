import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
import HTTPTypes

/// The remote token cache over HTTP: the seed-style JSON replies, app credentials, session proofs, per-app
/// scoping, and encryption at rest.
@Suite struct TokenCacheEndpointTests {
    static let sessionKey = "sess_" + String(repeating: "k7Q2", count: 10)

    static func call(_ client: any TestClientProtocol, _ method: String, app: String, _ form: [(String, String)])
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/v27.0/\(app)/token_cache", method: .post,
            headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: FormEncoding.encode(form + (method == "POST" ? [] : [("method", method)]))))
    }

    func credentials(_ server: TestServer, key: String = Self.sessionKey) -> [(String, String)] {
        [
            ("access_token", "\(server.app.id)|\(server.app.clientToken)"), ("session_key", key),
            ("session_proof", TokenCacheWire.sessionProof(sessionKey: key, appSecret: server.app.secret)),
        ]
    }

    @Test func storeFetchClear() async throws {
        let server = try await TestServer.make()
        let info = #"{"accessToken":{"tokenString":"EAAGsecret"}}"#
        try await server.run { client in
            let empty = try await Self.call(client, "GET", app: server.app.id, credentials(server))
            #expect(empty.status == .notFound)
            #expect(
                empty.text
                    == #"{"status":false,"errorCode":50002,"errorMessage":"No token data is cached for this session."}"#
            )
            let stored = try await Self.call(
                client, "POST", app: server.app.id, credentials(server) + [("token_info", info)])
            #expect(stored.status == .ok)
            #expect(stored.text == #"{"status":true}"#)
            // A plain GET with query parameters works too (the seed's shape); the app token may be used instead.
            let query = FormEncoding.encode([("access_token", server.appToken)] + credentials(server).dropFirst())
            let fetched = try await client.execute(uri: "/\(server.app.id)/token_cache?\(query)", method: .get)
            #expect(
                fetched.text == #"{"status":true,"token_info":"{\"accessToken\":{\"tokenString\":\"EAAGsecret\"}}"}"#)
            let cleared = try await Self.call(client, "DELETE", app: server.app.id, credentials(server))
            #expect(cleared.text == #"{"status":true}"#)
            let gone = try await Self.call(client, "GET", app: server.app.id, credentials(server))
            #expect(gone.json["errorCode"]?.intValue == 50002)
        }
    }

    @Test func refusesWithoutTheAppsCredentialsOrTheSessionProof() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(name: "Other", redirectURIs: [])
        let userToken = try await server.token(for: server.alice)
        try await server.run { client in
            var creds = credentials(server)
            creds[0].1 = userToken
            let user = try await Self.call(client, "GET", app: server.app.id, creds)
            #expect(user.status == .unauthorized)
            #expect(
                user.text
                    == #"{"status":false,"errorCode":30002,"errorMessage":"Invalid app credentials: send "#
                    + #"access_token=APPID|CLIENT_TOKEN or an app access token."}"#
            )
            let otherApp = try await Self.call(
                client, "GET", app: server.app.id,
                [("access_token", "\(other.id)|\(other.clientToken)")] + credentials(server).dropFirst())
            #expect(otherApp.json["errorCode"]?.intValue == 30002)
            let none = try await Self.call(client, "GET", app: server.app.id, Array(credentials(server).dropFirst()))
            #expect(none.json["errorCode"]?.intValue == 30002)

            creds = credentials(server)
            creds[2].1 = TokenCacheWire.sessionProof(sessionKey: Self.sessionKey, appSecret: other.secret)
            let badProof = try await Self.call(client, "GET", app: server.app.id, creds)
            #expect(badProof.status == .forbidden)
            #expect(
                badProof.text
                    == #"{"status":false,"errorCode":30003,"errorMessage":"Invalid session_proof for this session_key."}"#
            )
            let short = try await Self.call(
                client, "POST", app: server.app.id, credentials(server, key: "123") + [("token_info", "{}")])
            #expect(short.text == #"{"status":false,"errorCode":30001,"errorMessage":"Invalid data input."}"#)
            let notJSON = try await Self.call(
                client, "POST", app: server.app.id, credentials(server) + [("token_info", "not json")])
            #expect(notJSON.json["errorCode"]?.intValue == 30001)
        }
    }

    @Test func slotsAreScopedPerAppAndPerSession() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(name: "Other", redirectURIs: [])
        try await server.run { client in
            _ = try await Self.call(
                client, "POST", app: server.app.id, credentials(server) + [("token_info", #"{"a":1}"#)])
            // The same session key under another app (with that app's proof) sees nothing.
            let otherCreds: [(String, String)] = [
                ("access_token", "\(other.id)|\(other.clientToken)"), ("session_key", Self.sessionKey),
                ("session_proof", TokenCacheWire.sessionProof(sessionKey: Self.sessionKey, appSecret: other.secret)),
            ]
            let crossApp = try await Self.call(client, "GET", app: other.id, otherCreds)
            #expect(crossApp.json["errorCode"]?.intValue == 50002)
            let otherKey = Self.sessionKey + "x"
            let otherSession = try await Self.call(
                client, "GET", app: server.app.id, credentials(server, key: otherKey))
            #expect(otherSession.json["errorCode"]?.intValue == 50002)
        }
    }

    @Test func storedEncryptedWithoutTheSessionKey() async throws {
        let server = try await TestServer.make()
        let secretToken = "EAAGverysecrettokenvalue"
        let info = #"{"accessToken":{"tokenString":"\#(secretToken)"}}"#
        try await server.run { client in
            _ = try await Self.call(client, "POST", app: server.app.id, credentials(server) + [("token_info", info)])
            // Read what the database holds: neither the token nor the session key appears in it.
            let storage = server.services.storage
            let crypto = try await TokenCacheCrypto.load(storage.serverKeys, random: SystemRandomSource())
            let slot = crypto.slot(appID: server.app.id, sessionKey: Self.sessionKey)
            let record = try #require(try await storage.tokenCache.find(appID: server.app.id, slot: slot))
            #expect(slot.count == 64)
            #expect(!slot.contains(Self.sessionKey))
            #expect(!record.sealed.contains(secretToken))
            #expect(crypto.open(record.sealed, appID: server.app.id, sessionKey: Self.sessionKey, slot: slot) == info)
            #expect(
                crypto.open(record.sealed, appID: server.app.id, sessionKey: Self.sessionKey + "x", slot: slot) == nil)
            #expect(crypto.open(record.sealed, appID: "999", sessionKey: Self.sessionKey, slot: slot) == nil)
            let path = server.services.configuration.databasePath
            for file in [path, path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                #expect(bytes.range(of: Data(secretToken.utf8)) == nil)
                #expect(bytes.range(of: Data(Self.sessionKey.utf8)) == nil)
            }
        }
    }
}
