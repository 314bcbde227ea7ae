import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing

/// Item 14 and the proof list: a Limited Login profile is built from every claim, and the claims carry
/// Facebook's field types.
@Suite struct ProfileClaimsTests {
    static let payload: JSONValue = [
        "jti": "j-1", "iss": "http://127.0.0.1:9", "aud": "1234", "nonce": "n-1", "sub": "9001", "exp": 1_750_003_600,
        "iat": 1_750_000_000, "name": "Ada Lovelace", "given_name": "Ada", "middle_name": "King",
        "family_name": "Lovelace",
        "email": "ada@example.com", "picture": "http://127.0.0.1:9/pic/9001.png", "user_friends": ["9002", "9003"],
        "user_birthday": "12/10/1815", "user_age_range": ["min": 21], "user_hometown": ["id": "110", "name": "London"],
        "user_location": ["id": "111", "name": "Marylebone"], "user_gender": "female",
        "user_link": "http://127.0.0.1:9/9001",
    ]

    @Test func claimsHaveFacebooksTypes() throws {
        let claims = try #require(AuthenticationTokenClaims(Self.payload))
        let range: [String: NSNumber]? = claims.userAgeRange
        #expect(range == ["min": 21])
        let hometown: [String: String]? = claims.userHometown
        #expect(hometown == ["id": "110", "name": "London"])
        #expect(claims.userLocation == ["id": "111", "name": "Marylebone"])
        #expect(claims.userFriends == ["9002", "9003"])
        #expect(claims.exp == 1_750_003_600)
    }

    @Test func profileFromEveryClaim() throws {
        let claims = try #require(AuthenticationTokenClaims(Self.payload))
        let now = Date(timeIntervalSince1970: 1_750_000_100)
        let profile = Profile(claims: claims, now: now)
        #expect(profile.userID == "9001")
        #expect(profile.name == "Ada Lovelace")
        #expect(profile.firstName == "Ada" && profile.middleName == "King" && profile.lastName == "Lovelace")
        #expect(profile.email == "ada@example.com")
        #expect(profile.imageURL?.absoluteString == "http://127.0.0.1:9/pic/9001.png")
        #expect(profile.friendIDs == ["9002", "9003"])
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        #expect(profile.birthday == utc.date(from: DateComponents(year: 1815, month: 12, day: 10)))
        #expect(profile.ageRange == UserAgeRange(min: 21, max: nil))
        #expect(profile.hometown == Location(id: "110", name: "London"))
        #expect(profile.location == Location(id: "111", name: "Marylebone"))
        #expect(profile.gender == "female")
        #expect(profile.linkURL?.absoluteString == "http://127.0.0.1:9/9001")
        #expect(profile.refreshDate == now)
        #expect(profile.isLimited)
        // The nested names still work.
        let nested: Profile.UserAgeRange? = profile.ageRange
        #expect(nested?.min == 21)
    }

    @Test func topLevelTypesValidateAsFacebooks() {
        #expect(UserAgeRange(from: ["min": 18, "max": 20]) == UserAgeRange(min: 18, max: 20))
        #expect(UserAgeRange(from: [:]) == nil)
        #expect(UserAgeRange(from: ["min": -1]) == nil)
        #expect(Location(from: ["id": "1", "name": "Paris"]) == Location(id: "1", name: "Paris"))
        #expect(Location(from: ["id": "1"]) == nil)
    }
}
