import Foundation
import GatehouseProtocol
import GatehouseTesting
import Testing

/// `mintToken`, `mintIDToken`, `mintCode`, `revoke` and `revokeTokens` on the in-process emulator.
@Suite struct EmulatorTokenHelperTests {
    typealias Wire = GatehouseEmulatorTests

    @Test func aMintedTokenCarriesItsScopesAndExpiresWhenAsked() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let gatehouse = try await GatehouseEmulator.start(.init(startDate: start))
        let carol = gatehouse.users[2]
        let token = try await gatehouse.mintToken(for: carol, scopes: ["email"], expiresIn: 3600)
        #expect(token.expiresAt == start.addingTimeInterval(3600))
        #expect(token.scopes == ["public_profile", "email"])
        let (status, me) = try await Wire.get(
            gatehouse, "v27.0/me", ["fields": "email", "access_token": token.accessToken])
        #expect(status == 200)
        #expect(me["email"] == .string(carol.email))
        try await gatehouse.advanceClock(by: 3601)
        let (expired, body) = try await Wire.get(gatehouse, "v27.0/me", ["access_token": token.accessToken])
        #expect(expired == 400)
        #expect(body["error"]?["code"] == 190)
        #expect(body["error"]?["error_subcode"] == 463)
        try await gatehouse.stop()
    }

    @Test func aMintedIDTokenNamesTheAppThePersonAndTheNonce() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let alice = gatehouse.users[0]
        let login = try await gatehouse.logIn(alice, permissions: ["email"])
        let idToken = try await gatehouse.mintIDToken(for: alice, nonce: "nonce-123")
        let parts = idToken.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let claims = try JSONValue.parse(try #require(Self.base64URL(parts[1])))
        #expect(claims["aud"] == .string(gatehouse.app.id))
        #expect(claims["sub"] == .string(login.userID))
        #expect(claims["nonce"] == "nonce-123")
        #expect(claims["email"] == .string(alice.email))
        let header = try JSONValue.parse(try #require(Self.base64URL(parts[0])))
        #expect(header["alg"] == "RS256")
        try await gatehouse.stop()
    }

    @Test func aMintedCodeIsExchangedByABackEnd() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let bob = gatehouse.users[1]
        let code = try await gatehouse.mintCode(for: bob, scopes: ["email"])
        #expect(code.hasPrefix("AQ"))
        let query = [
            "client_id": gatehouse.app.id, "client_secret": gatehouse.app.secret,
            "redirect_uri": gatehouse.app.redirectURI, "code": code,
        ]
        let (status, exchanged) = try await Wire.get(gatehouse, "v27.0/oauth/access_token", query)
        #expect(status == 200)
        #expect(exchanged["token_type"] == "bearer")
        let token = try #require(exchanged["access_token"]?.stringValue)
        let (_, me) = try await Wire.get(gatehouse, "v27.0/me", ["fields": "name,email", "access_token": token])
        #expect(me["name"] == .string(bob.name))
        #expect(me["email"] == .string(bob.email))
        // A code is used once.
        let (again, _) = try await Wire.get(gatehouse, "v27.0/oauth/access_token", query)
        #expect(again == 400)
        // A redirect URI the app did not register is refused, naming the field.
        let error = await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.mintCode(for: bob, redirectURI: "https://evil.example/")
        }
        #expect(error?.status == 400)
        #expect(error?.field == "redirect_uri")
        try await gatehouse.stop()
    }

    @Test func revokingOneTokenOrAllOfAPersonsEndsThem() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let alice = gatehouse.users[0], bob = gatehouse.users[1]
        let first = try await gatehouse.mintToken(for: alice)
        let second = try await gatehouse.mintToken(for: alice)
        let bobs = try await gatehouse.mintToken(for: bob)
        try await gatehouse.revoke(first)
        #expect(try await Self.meStatus(gatehouse, first) == 400)
        #expect(try await Self.meStatus(gatehouse, second) == 200)
        #expect(try await gatehouse.revokeTokens(of: alice) == 1)
        #expect(try await Self.meStatus(gatehouse, second) == 400)
        #expect(try await Self.meStatus(gatehouse, bobs) == 200)
        #expect(try await gatehouse.revokeTokens(of: gatehouse.app) == 1)
        #expect(try await Self.meStatus(gatehouse, bobs) == 400)
        let (_, body) = try await Wire.get(gatehouse, "v27.0/me", ["access_token": bobs.accessToken])
        #expect(body["error"]?["code"] == 190)
        // A revoked token's id is no longer live.
        let error = await #expect(throws: GatehouseAdminError.self) { try await gatehouse.revoke(first) }
        #expect(error?.status == 404)
        try await gatehouse.stop()
    }

    static func meStatus(_ gatehouse: GatehouseEmulator, _ token: MintedToken) async throws -> Int {
        try await Wire.get(gatehouse, "v27.0/me", ["access_token": token.accessToken]).0
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
