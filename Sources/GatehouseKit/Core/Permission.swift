import Foundation
import GatehouseProtocol

/// A permission, typed as in Facebook's SDK: known names as cases, anything else as `.custom`.
///
/// The cases are Facebook's; their wire names come from the vocabulary the server uses
/// (`GatehouseProtocol.Permission`), so the SDK spells no permission of its own.
public enum Permission: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    case publicProfile, email, userFriends, userBirthday, userAgeRange, userGender, userHometown, userLocation
    case userLink, userPhotos, userPosts, userLikes, userVideos, userMessengerContact, gamingProfile, gamingUserPicture
    case pagesShowList, pagesReadEngagement, pagesManagePosts, publishActions, publishVideo, adsRead, adsManagement
    case businessManagement, instagramBasic, openid
    case custom(String)

    /// The shared vocabulary.
    private typealias Wire = GatehouseProtocol.Permission

    /// Every named case, for reading a wire name back into one.
    private static let named: [Permission] = [
        .publicProfile, .email, .userFriends, .userBirthday, .userAgeRange, .userGender, .userHometown, .userLocation,
        .userLink, .userPhotos, .userPosts, .userLikes, .userVideos, .userMessengerContact, .gamingProfile,
        .gamingUserPicture, .pagesShowList, .pagesReadEngagement, .pagesManagePosts, .publishActions, .publishVideo,
        .adsRead, .adsManagement, .businessManagement, .instagramBasic, .openid,
    ]

    private static let byName: [String: Permission] = Dictionary(uniqueKeysWithValues: named.map { ($0.name, $0) })

    /// The wire name, e.g. `public_profile`.
    public var name: String {
        // A switch, not a lookup in `byName`: `==` compares names, so a lookup would recurse forever.
        switch self {
        case .custom(let raw): raw
        case .publicProfile: Wire.publicProfile
        case .email: Wire.email
        case .userFriends: Wire.userFriends
        case .userBirthday: Wire.userBirthday
        case .userAgeRange: Wire.userAgeRange
        case .userGender: Wire.userGender
        case .userHometown: Wire.userHometown
        case .userLocation: Wire.userLocation
        case .userLink: Wire.userLink
        case .userPhotos: Wire.userPhotos
        case .userPosts: Wire.userPosts
        case .userLikes: Wire.userLikes
        case .userVideos: Wire.userVideos
        case .userMessengerContact: Wire.userMessengerContact
        case .gamingProfile: Wire.gamingProfile
        case .gamingUserPicture: Wire.gamingUserPicture
        case .pagesShowList: Wire.pagesShowList
        case .pagesReadEngagement: Wire.pagesReadEngagement
        case .pagesManagePosts: Wire.pagesManagePosts
        case .publishActions: Wire.publishActions
        case .publishVideo: Wire.publishVideo
        case .adsRead: Wire.adsRead
        case .adsManagement: Wire.adsManagement
        case .businessManagement: Wire.businessManagement
        case .instagramBasic: Wire.instagramBasic
        case .openid: Wire.openid
        }
    }

    /// The User fields this permission lets `me` read, from the shared field table (`user_hometown`: `hometown`).
    var userFields: [UserField] { Wire.fields(unlockedBy: name) }

    /// The typed permission for a wire name.
    public init(stringLiteral value: String) {
        self = Self.byName[value] ?? .custom(value)
    }

    public init(_ name: String) { self.init(stringLiteral: name) }

    public var description: String { name }

    // A `.custom` name that is a case's wire name is that case (`.custom` of the email name equals `.email`).
    public static func == (a: Permission, b: Permission) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// The audience a person's posts get by default when publish permissions are granted.
public enum DefaultAudience: UInt, Sendable {
    case friends = 0, onlyMe, everyone

    /// The dialog's `default_audience` value.
    public var wireName: String {
        switch self {
        case .friends: "friends"
        case .onlyMe: "only_me"
        case .everyone: "everyone"
        }
    }
}

/// Read or publish: Facebook's SDKs ask for the two kinds separately.
public enum PermissionKind {
    /// The iOS SDK 4.x rule (`isPublishPermission:`): a `publish` or `manage` prefix, `ads_management`,
    /// `create_event` or `rsvp_event`. The server's catalogue uses the same rule.
    public static func isPublish(_ name: String) -> Bool {
        GatehouseProtocol.Permission.isPublish(name)
    }
}
