import Foundation
import GatehouseCore
import GatehouseProtocol
import Testing

/// Issue 31, item 6: the server's id_token payload writes the registered claims by `IDTokenClaim` and each
/// profile claim under its `UserField`'s claim name.
@Suite struct IDTokenClaimsTests {
    static func claims(nonce: String? = "n-1") -> IDTokenClaims {
        IDTokenClaims(
            iss: "http://gatehouse.test", aud: "42", sub: "9", iat: 1_800_000_000, exp: 1_800_003_600, jti: "j",
            nonce: nonce)
    }

    @Test func thePayloadIsRegisteredClaimsThenProfileClaimsInTheOrderSet() throws {
        var claims = Self.claims()
        claims[.name] = "Ann Cole"
        claims[.hometown] = ["id": "7", "name": "Porto"]
        claims[.ageRange] = ["min": 21]
        let json = try JSONValue(encoding: claims)
        #expect(
            json.objectValue?.keys == [
                "iss", "aud", "sub", "iat", "exp", "jti", "nonce", "name", "user_hometown", "user_age_range",
            ])
        #expect(json["user_hometown"] == ["id": "7", "name": "Porto"])
        #expect(json["iat"] == 1_800_000_000)
        #expect(claims[.hometown] == ["id": "7", "name": "Porto"])
    }

    @Test func noNonceNoClaimAndAFieldWithoutAClaimAddsNothing() throws {
        var claims = Self.claims(nonce: nil)
        claims[.locale] = "en_US"
        claims[.quotes] = "Be brief."
        claims[.email] = "a@example.com"
        claims[.email] = nil
        let json = try JSONValue(encoding: claims)
        #expect(json.objectValue?.keys == ["iss", "aud", "sub", "iat", "exp", "jti"])
        #expect(claims[.locale] == nil)
    }

    @Test func aPayloadReadsBack() throws {
        var claims = Self.claims()
        claims[.gender] = "female"
        claims[.friends] = ["1", "2"]
        let data = try JSONEncoder().encode(claims)
        #expect(try JSONDecoder().decode(IDTokenClaims.self, from: data) == claims)
    }
}
