/// One field of Facebook's User node, and every name it goes by: the Graph field, the permission that
/// reveals it, its FQL `user` column and its id_token claim.
///
/// `UserField.all` is the one place these names are spelled. The server's Graph and FQL endpoints, the
/// id_token and discovery document, and the SDK's profile loading and claim parsing read it; how a value is
/// stored and written lives next to it in GatehouseCore (`UserFieldValue`). Adding a profile field means an
/// entry here, one there, a migration for its column and a test.
package struct UserField: Sendable, Hashable {
    /// The Graph field (`hometown`).
    package let name: String
    /// The permission a token needs to read it (`user_hometown`; `public_profile` for the basics).
    package let permission: String
    /// The FQL `user` column that reads it (`hometown_location`); nil when FQL has none.
    package let fqlColumn: String?
    /// The id_token claim that carries it (`user_hometown`); nil when Limited Login has no such claim.
    package let idTokenClaim: String?

    package init(_ name: String, permission: String, fql: String? = nil, claim: String? = nil) {
        self.name = name
        self.permission = permission
        self.fqlColumn = fql
        self.idTokenClaim = claim
    }
}

extension UserField {
    package static let id = UserField("id", permission: Permission.publicProfile, fql: "uid")
    package static let name = UserField("name", permission: Permission.publicProfile, fql: "name", claim: "name")
    package static let firstName = UserField(
        "first_name", permission: Permission.publicProfile, fql: "first_name", claim: "given_name")
    package static let middleName = UserField(
        "middle_name", permission: Permission.publicProfile, fql: "middle_name", claim: "middle_name")
    package static let lastName = UserField(
        "last_name", permission: Permission.publicProfile, fql: "last_name", claim: "family_name")
    package static let nameFormat = UserField("name_format", permission: Permission.publicProfile)
    package static let shortName = UserField("short_name", permission: Permission.publicProfile)
    package static let picture = UserField("picture", permission: Permission.publicProfile, claim: "picture")
    package static let email = UserField("email", permission: Permission.email, fql: "email", claim: "email")
    package static let birthday = UserField(
        "birthday", permission: Permission.userBirthday, fql: "birthday_date", claim: "user_birthday")
    package static let gender = UserField("gender", permission: Permission.userGender, fql: "sex", claim: "user_gender")
    package static let link = UserField("link", permission: Permission.userLink, fql: "profile_url", claim: "user_link")
    package static let location = UserField(
        "location", permission: Permission.userLocation, fql: "current_location", claim: "user_location")
    package static let hometown = UserField(
        "hometown", permission: Permission.userHometown, fql: "hometown_location", claim: "user_hometown")
    package static let ageRange = UserField("age_range", permission: Permission.userAgeRange, claim: "user_age_range")
    package static let friends = UserField("friends", permission: Permission.userFriends, claim: "user_friends")
    package static let permissions = UserField("permissions", permission: Permission.publicProfile)
    /// Seed 002 reads it with basic permissions through FQL; empty until set.
    package static let quotes = UserField("quotes", permission: Permission.publicProfile, fql: "quotes")
    /// Facebook's `locale` ("en_US" unless set), public with the basic profile; Limited Login has no claim for
    /// it (its discovery document does not list one).
    package static let locale = UserField("locale", permission: Permission.publicProfile, fql: "locale")

    /// Every User field Gatehouse serves, in the order Facebook's reference lists the common ones.
    package static let all: [UserField] = [
        id, name, firstName, middleName, lastName, nameFormat, shortName, picture, email, birthday, gender, link,
        location, hometown, ageRange, friends, permissions, quotes, locale,
    ]

    /// The field called `name` on the Graph API, if there is one.
    package static func named(_ name: String) -> UserField? { byName[name] }

    private static let byName: [String: UserField] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The fields an id_token can carry, by claim.
    package static var claims: [UserField] { all.filter { $0.idTokenClaim != nil } }
}
