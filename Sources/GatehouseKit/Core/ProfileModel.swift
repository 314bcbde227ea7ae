import Foundation

/// A person's public profile (Facebook's `Profile`). Loading, caching and notifications live in `Profile/`.
public final class Profile: Codable, Equatable, Sendable {
    /// Facebook's nested names before these types moved to the top level.
    public typealias UserAgeRange = GatehouseKit.UserAgeRange
    public typealias Location = GatehouseKit.Location

    public let userID: String
    public let firstName: String?
    public let middleName: String?
    public let lastName: String?
    public let name: String?
    public let linkURL: URL?
    public let refreshDate: Date
    public let imageURL: URL?
    public let email: String?
    public let friendIDs: [String]?
    public let birthday: Date?
    public let ageRange: UserAgeRange?
    public let hometown: Location?
    public let location: Location?
    public let gender: String?
    public let permissions: Set<String>?
    /// True when built from a Limited Login id_token rather than the Graph API.
    public let isLimited: Bool

    /// Facebook's three initialisers in one: every field after `userID` may be left out (nil; the refresh
    /// date defaults to now by the SDK's clock), and `isLimited` comes before `permissions`, as in Facebook's.
    public init(
        userID: String, firstName: String? = nil, middleName: String? = nil, lastName: String? = nil,
        name: String? = nil,
        linkURL: URL? = nil, refreshDate: Date? = nil, imageURL: URL? = nil, email: String? = nil,
        friendIDs: [String]? = nil,
        birthday: Date? = nil, ageRange: UserAgeRange? = nil, hometown: Location? = nil, location: Location? = nil,
        gender: String? = nil, isLimited: Bool = false, permissions: Set<String>? = nil
    ) {
        self.userID = userID
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.name = name
        self.linkURL = linkURL
        self.refreshDate = refreshDate ?? GatehouseKitEnvironment.current.clock.now()
        self.imageURL = imageURL
        self.email = email
        self.friendIDs = friendIDs
        self.birthday = birthday
        self.ageRange = ageRange
        self.hometown = hometown
        self.location = location
        self.gender = gender
        self.permissions = permissions
        self.isLimited = isLimited
    }

    public static func == (a: Profile, b: Profile) -> Bool {
        a.userID == b.userID && a.firstName == b.firstName && a.middleName == b.middleName && a.lastName == b.lastName
            && a.name == b.name && a.linkURL == b.linkURL && a.refreshDate == b.refreshDate && a.imageURL == b.imageURL
            && a.email == b.email && a.friendIDs == b.friendIDs && a.birthday == b.birthday && a.ageRange == b.ageRange
            && a.hometown == b.hometown && a.location == b.location && a.gender == b.gender
            && a.permissions == b.permissions && a.isLimited == b.isLimited
    }
}
