import Foundation
import GatehouseProtocol

/// A permission, typed as in Facebook's SDK: known names as cases, anything else as `.custom`.
public enum Permission: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    case publicProfile, email, userFriends, userBirthday, userAgeRange, userGender, userHometown, userLocation
    case userLink, userPhotos, userPosts, userLikes, userVideos, userMessengerContact, gamingProfile, gamingUserPicture
    case pagesShowList, pagesReadEngagement, pagesManagePosts, publishActions, publishVideo, adsRead, adsManagement
    case businessManagement, instagramBasic, openid
    case custom(String)

    private static let names: [(Permission, String)] = [
        (.publicProfile, "public_profile"), (.email, "email"), (.userFriends, "user_friends"),
        (.userBirthday, "user_birthday"), (.userAgeRange, "user_age_range"), (.userGender, "user_gender"),
        (.userHometown, "user_hometown"), (.userLocation, "user_location"), (.userLink, "user_link"),
        (.userPhotos, "user_photos"), (.userPosts, "user_posts"), (.userLikes, "user_likes"),
        (.userVideos, "user_videos"), (.userMessengerContact, "user_messenger_contact"),
        (.gamingProfile, "gaming_profile"), (.gamingUserPicture, "gaming_user_picture"),
        (.pagesShowList, "pages_show_list"), (.pagesReadEngagement, "pages_read_engagement"),
        (.pagesManagePosts, "pages_manage_posts"), (.publishActions, "publish_actions"),
        (.publishVideo, "publish_video"), (.adsRead, "ads_read"), (.adsManagement, "ads_management"),
        (.businessManagement, "business_management"), (.instagramBasic, "instagram_basic"), (.openid, "openid"),
    ]

    /// The wire name, e.g. `public_profile`.
    public var name: String {
        // A switch, not a lookup in `names`: `==` compares names, so a lookup would recurse forever.
        switch self {
        case .custom(let raw): raw
        case .publicProfile: "public_profile"
        case .email: "email"
        case .userFriends: "user_friends"
        case .userBirthday: "user_birthday"
        case .userAgeRange: "user_age_range"
        case .userGender: "user_gender"
        case .userHometown: "user_hometown"
        case .userLocation: "user_location"
        case .userLink: "user_link"
        case .userPhotos: "user_photos"
        case .userPosts: "user_posts"
        case .userLikes: "user_likes"
        case .userVideos: "user_videos"
        case .userMessengerContact: "user_messenger_contact"
        case .gamingProfile: "gaming_profile"
        case .gamingUserPicture: "gaming_user_picture"
        case .pagesShowList: "pages_show_list"
        case .pagesReadEngagement: "pages_read_engagement"
        case .pagesManagePosts: "pages_manage_posts"
        case .publishActions: "publish_actions"
        case .publishVideo: "publish_video"
        case .adsRead: "ads_read"
        case .adsManagement: "ads_management"
        case .businessManagement: "business_management"
        case .instagramBasic: "instagram_basic"
        case .openid: "openid"
        }
    }

    /// The typed permission for a wire name.
    public init(stringLiteral value: String) {
        self = Self.names.first { $0.1 == value }?.0 ?? .custom(value)
    }

    public init(_ name: String) { self.init(stringLiteral: name) }

    public var description: String { name }

    // `.custom("email")` and `.email` are the same permission.
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
