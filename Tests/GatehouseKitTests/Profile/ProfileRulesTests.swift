import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol

@Suite("Profile loading rules, parsing and picture URLs")
struct ProfileRulesTests {
    typealias F = SessionKitFixtures

    static func profile(user: String = "100", refreshed: Date, limited: Bool = false) -> Profile {
        Profile(
            userID: user, firstName: "A", middleName: nil, lastName: "B", name: "A B", linkURL: nil,
            refreshDate: refreshed, isLimited: limited)
    }

    @Test("fields follow the token's permissions, in Facebook's order")
    func fields() {
        #expect(ProfileLoadPolicy.fields(for: F.token()) == "id,first_name,middle_name,last_name,name")
        let all = F.token(permissions: [
            "user_gender", "user_location", "user_hometown", "user_age_range", "user_birthday", "user_friends", "email",
            "user_link",
        ])
        #expect(
            ProfileLoadPolicy.fields(for: all)
                == "id,first_name,middle_name,last_name,name,link,email,friends,birthday,age_range,hometown,location,gender"
        )
        #expect(
            ProfileLoadPolicy.fields(for: F.token(permissions: ["email", "user_birthday"]))
                == "id,first_name,middle_name,last_name,name,email,birthday")
    }

    @Test("fetch only with a token and a missing, stale, foreign or limited profile")
    func shouldFetch() {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let token = F.token(user: "100")
        let day: TimeInterval = 24 * 60 * 60
        #expect(!ProfileLoadPolicy.shouldFetch(current: nil, token: nil, now: now))
        #expect(!ProfileLoadPolicy.shouldFetch(current: Self.profile(refreshed: now - 2 * day), token: nil, now: now))
        #expect(ProfileLoadPolicy.shouldFetch(current: nil, token: token, now: now))
        #expect(!ProfileLoadPolicy.shouldFetch(current: Self.profile(refreshed: now - day), token: token, now: now))
        #expect(ProfileLoadPolicy.shouldFetch(current: Self.profile(refreshed: now - day - 1), token: token, now: now))
        #expect(
            ProfileLoadPolicy.shouldFetch(current: Self.profile(user: "200", refreshed: now), token: token, now: now))
        #expect(
            ProfileLoadPolicy.shouldFetch(current: Self.profile(refreshed: now, limited: true), token: token, now: now))
    }

    @Test("a full `me` reply becomes a profile with every field")
    func parseFull() throws {
        let json = try JSONValue.parse(
            Data(
                """
                {"id":"100","first_name":"Alice","middle_name":"M","last_name":"Anders","name":"Alice M Anders",
                 "link":"https://gatehouse.test/alice","email":"alice@gatehouse.test",
                 "friends":{"data":[{"name":"Bob","id":"200"},{"name":"Carol","id":"300"}],"summary":{"total_count":5}},
                 "birthday":"04/12/1990","age_range":{"min":21},"hometown":{"id":"10","name":"Springfield"},
                 "location":{"id":"11","name":"Shelbyville"},"gender":"female"}
                """.utf8))
        let refreshed = Date(timeIntervalSince1970: 1_750_000_000)
        let profile = try #require(ProfileResponse.profile(from: json, refreshDate: refreshed))
        #expect(
            profile
                == Profile(
                    userID: "100", firstName: "Alice", middleName: "M", lastName: "Anders", name: "Alice M Anders",
                    linkURL: URL(string: "https://gatehouse.test/alice"), refreshDate: refreshed, imageURL: nil,
                    email: "alice@gatehouse.test", friendIDs: ["200", "300"],
                    birthday: Date(timeIntervalSince1970: 639_878_400),
                    ageRange: .init(min: 21, max: nil), hometown: .init(id: "10", name: "Springfield"),
                    location: .init(id: "11", name: "Shelbyville"), gender: "female"))
    }

    @Test("partial birthdays, empty friend lists and a missing id")
    func parseEdges() throws {
        let partial = try JSONValue.parse(
            Data(#"{"id":"1","birthday":"04/12","friends":{"data":[]},"age_range":{}}"#.utf8))
        let profile = try #require(ProfileResponse.profile(from: partial, refreshDate: Date()))
        #expect(profile.birthday == nil)
        #expect(profile.friendIDs == nil)
        #expect(profile.ageRange == nil)
        #expect(profile.name == nil)
        #expect(ProfileResponse.birthday(from: "1990") == nil)
        #expect(
            ProfileResponse.profile(from: try JSONValue.parse(Data(#"{"name":"x"}"#.utf8)), refreshDate: Date()) == nil)
    }

    @Test("picture URLs use the current token, else appID|clientToken")
    func imageURLs() async {
        let settings = Settings()
        settings.serverURL = URL(string: "http://127.0.0.1:9999/")!
        settings.clientToken = "ct"
        let environment = F.environment(settings: settings)
        let profile = Self.profile(refreshed: Date())
        await F.with(environment) {
            #expect(
                profile.imageURL(forMode: .square, size: CGSize(width: 100, height: 50))?.absoluteString
                    == "http://127.0.0.1:9999/v27.0/100/picture?access_token=1000000000001%7Cct&height=50&type=square&width=100"
            )
            AccessToken.current = F.token(string: "EAA token")
            #expect(
                profile.imageURL(forMode: .large, size: CGSize(width: 99.6, height: 200.2))?.absoluteString
                    == "http://127.0.0.1:9999/v27.0/100/picture?access_token=EAA+token&height=200&type=large&width=100")
            #expect(profile.imageURL(forMode: .normal, size: CGSize(width: -1, height: 5)) == nil)
            #expect(profile.imageURL(forMode: .normal, size: CGSize(width: CGFloat.infinity, height: 5)) == nil)
        }
        #expect(Profile.PictureMode.allCases.map(\.wireName) == ["square", "normal", "album", "small", "large"])
        #expect(Profile.PictureMode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
    }
}
