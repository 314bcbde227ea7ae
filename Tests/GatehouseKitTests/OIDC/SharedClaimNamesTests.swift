import Foundation
import GatehouseCore
@testable import GatehouseKit
import GatehouseProtocol
import Testing

/// Issue 31, item 6: the SDK reads the id_token with the names the server writes it with. A payload made by
/// the server's `IDTokenClaims`, every profile claim set, fills every property of `AuthenticationTokenClaims`.
@Suite struct SharedClaimNamesTests {
    @Test func everyClaimTheServerWritesTheSDKReads() throws {
        var server = IDTokenClaims(
            iss: "http://gatehouse.test", aud: "42", sub: "9", iat: 1_800_000_000, exp: 1_800_003_600, jti: "j",
            nonce: "n")
        let values: [UserField: JSONValue] = [
            .name: "Ada King Lovelace", .firstName: "Ada", .middleName: "King", .lastName: "Lovelace",
            .picture: "http://p/9",
            .email: "ada@example.com", .birthday: "12/10/1815", .gender: "female", .link: "http://l/9",
            .location: ["id": "111", "name": "Marylebone"], .hometown: ["id": "110", "name": "London"],
            .ageRange: ["min": 21],
            .friends: ["1", "2"],
        ]
        // The table's claims and this test's values are the same set: a new claim must be read by the SDK too.
        #expect(Set(values.keys) == Set(UserField.claims))
        for field in UserField.claims { server[field] = values[field] }

        let claims = try #require(AuthenticationTokenClaims(try JSONValue(encoding: server)))
        #expect(claims.iss == "http://gatehouse.test" && claims.aud == "42" && claims.sub == "9" && claims.jti == "j")
        #expect(claims.nonce == "n" && claims.iat == 1_800_000_000 && claims.exp == 1_800_003_600)
        #expect(claims.name == "Ada King Lovelace" && claims.givenName == "Ada" && claims.middleName == "King")
        #expect(claims.familyName == "Lovelace" && claims.picture == "http://p/9" && claims.email == "ada@example.com")
        #expect(claims.userBirthday == "12/10/1815" && claims.userGender == "female" && claims.userLink == "http://l/9")
        #expect(
            claims.userLocation == ["id": "111", "name": "Marylebone"]
                && claims.userHometown == ["id": "110", "name": "London"])
        #expect(claims.userAgeRange == ["min": 21] && claims.userFriends == ["1", "2"])
    }
}
