import Foundation

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
        if case .custom(let raw) = self { return raw }
        return Self.names.first { $0.0 == self }!.1
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
