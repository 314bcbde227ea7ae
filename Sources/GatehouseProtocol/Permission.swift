import Foundation

/// What the consent page and App Review rules need to know about one permission.
package struct PermissionInfo: Sendable, Equatable, Hashable {
    /// The wire name, e.g. `user_birthday`.
    package var name: String
    /// A short label for the consent page, e.g. "Email address".
    package var title: String
    /// One sentence telling the user what the app will see, shown beside the title.
    package var reveals: String
    /// Whether the permission needs App Review (Advanced Access) before non-role users may grant
    /// it; false only for `public_profile`, `email` and `openid`.
    package var needsReview: Bool
    /// Whether a Limited Login (`tracking: .limited`) request may ask for it.
    package var allowedInLimitedLogin: Bool
    /// A publish permission: asked on the dialog's second step, with the default audience.
    package var isPublish: Bool

    /// Creates a catalogue entry.
    package init(
        name: String, title: String, reveals: String, needsReview: Bool, allowedInLimitedLogin: Bool,
        isPublish: Bool = false
    ) {
        self.name = name
        self.title = title
        self.reveals = reveals
        self.needsReview = needsReview
        self.allowedInLimitedLogin = allowedInLimitedLogin
        self.isPublish = isPublish
    }
}

/// Permission names and the rules around them: the one vocabulary the server and the SDK share.
///
/// A caseless namespace of string constants rather than an enum of cases: scopes arrive as free
/// text, unknown names must pass through untouched (Facebook adds and retires permissions often).
/// The SDK's public `Permission` (GatehouseKit) keeps Facebook's cases and `.custom(String)` for
/// apps being ported, and takes each case's wire name from here; `fields(unlockedBy:)` reads the
/// `UserField` table for what a permission reveals.
package enum Permission {
    /// Name, profile picture and app-scoped id; always granted.
    package static let publicProfile = "public_profile"
    /// Primary email address.
    package static let email = "email"
    /// OpenID Connect; asks for an id_token.
    package static let openid = "openid"
    /// Friends who also use the app.
    package static let userFriends = "user_friends"
    /// Birthday.
    package static let userBirthday = "user_birthday"
    /// Gender.
    package static let userGender = "user_gender"
    /// Profile link.
    package static let userLink = "user_link"
    /// Current city.
    package static let userLocation = "user_location"
    /// Home town.
    package static let userHometown = "user_hometown"
    /// Age range.
    package static let userAgeRange = "user_age_range"
    /// Photos.
    package static let userPhotos = "user_photos"
    /// Timeline posts.
    package static let userPosts = "user_posts"
    /// Liked Pages.
    package static let userLikes = "user_likes"
    /// Videos.
    package static let userVideos = "user_videos"
    /// Messenger contact for the app's Page.
    package static let userMessengerContact = "user_messenger_contact"
    /// Gaming profile.
    package static let gamingProfile = "gaming_profile"
    /// Gaming profile picture.
    package static let gamingUserPicture = "gaming_user_picture"
    /// Pages the user manages.
    package static let pagesShowList = "pages_show_list"
    /// Page content and engagement data.
    package static let pagesReadEngagement = "pages_read_engagement"
    /// Posting as a Page.
    package static let pagesManagePosts = "pages_manage_posts"
    /// Publishing for the user (legacy, still requested by old clients).
    package static let publishActions = "publish_actions"
    /// Publishing live video.
    package static let publishVideo = "publish_video"
    /// Posting as the Pages the person manages (Graph v2.3-v3.x).
    package static let publishPages = "publish_pages"
    /// Page access tokens for the Pages the person manages (Graph v2.x).
    package static let managePages = "manage_pages"
    /// Ads reporting.
    package static let adsRead = "ads_read"
    /// Ads management.
    package static let adsManagement = "ads_management"
    /// Business Manager assets.
    package static let businessManagement = "business_management"
    /// Linked Instagram account profile and media.
    package static let instagramBasic = "instagram_basic"
    /// Events the user hosts or attends.
    package static let userEvents = "user_events"
    /// Page and app insights.
    package static let readInsights = "read_insights"

    /// The catalogue entry for `name`, or nil for names this server does not describe.
    package static func info(_ name: String) -> PermissionInfo? {
        catalogueByName[name]
    }

    /// Whether `name` is in the catalogue or among the ``retired`` permissions.
    package static func isKnown(_ name: String) -> Bool {
        catalogueByName[name] != nil
    }

    /// Splits a `scope` parameter on commas and/or whitespace, since social-core joins with `,`
    /// and Authlib with a space; empties are dropped and duplicates removed, keeping first order.
    package static func parseScope(_ scope: String) -> [String] {
        var seen = Set<String>()
        var names: [String] = []
        let pieces = scope.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        for piece in pieces where seen.insert(String(piece)).inserted {
            names.append(String(piece))
        }
        return names
    }

    /// Whether `name` is shaped like a permission: non-empty, only `a-z`, `0-9`, `_` and `.`.
    /// Digits and dots are allowed because names such as `user_action.fitness` exist, even though
    /// the iOS SDK itself rejects them.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }

    /// Whether `name` is a publish permission, which Facebook asks for apart from read permissions.
    ///
    /// The iOS SDK 4.x rule (`FBSDKInternalUtility isPublishPermission:`): a `publish` or `manage` prefix,
    /// `ads_management`, `create_event` or `rsvp_event`. It covers names outside the catalogue too.
    package static func isPublish(_ name: String) -> Bool {
        name.hasPrefix("publish") || name.hasPrefix("manage")
            || ["ads_management", "create_event", "rsvp_event"].contains(name)
    }

    /// The names Limited Login accepts, in catalogue order.
    package static var limitedLoginNames: [String] {
        catalogue.filter(\.allowedInLimitedLogin).map(\.name)
    }

    /// The catalogue and the retired permissions: a retired name is known (the seeds' versions grant it);
    /// the login dialog refuses it at versions after its removal.
    private static let catalogueByName: [String: PermissionInfo] =
        Dictionary((catalogue + retired.map(\.info)).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}

// MARK: - Catalogue

extension Permission {
    /// Every permission the consent page can describe, in the order it lists them.
    ///
    /// `needsReview` follows Facebook's rule that only `public_profile`, `email` (and `openid`,
    /// which adds no data) are usable without App Review. `allowedInLimitedLogin` follows the
    /// Limited Login documentation; the SDK does not check it, so the server must.
    package static let catalogue: [PermissionInfo] = [
        entry(
            publicProfile, "Public profile", "Your name, profile picture and an ID unique to this app.", review: false,
            limited: true),
        entry(email, "Email address", "Your primary email address.", review: false, limited: true),
        entry(
            openid, "Sign-in identity", "A signed statement that it is you signing in.", review: false, limited: true),
        entry(userFriends, "Friends list", "The friends of yours who also use this app.", limited: true),
        entry(userBirthday, "Birthday", "Your date of birth.", limited: true),
        entry(userGender, "Gender", "The gender on your profile.", limited: true),
        entry(userLink, "Profile link", "A link to your profile.", limited: true),
        entry(userLocation, "Current city", "The current city on your profile.", limited: true),
        entry(userHometown, "Home town", "The home town on your profile.", limited: true),
        entry(userAgeRange, "Age range", "The age range you fall into, such as 21 or over.", limited: true),
        entry(userPhotos, "Photos", "The photos you have uploaded or been tagged in.", limited: false),
        entry(userPosts, "Posts", "The posts on your timeline.", limited: false),
        entry(userLikes, "Likes", "The Pages and things you have liked.", limited: false),
        entry(userVideos, "Videos", "The videos you have uploaded or been tagged in.", limited: false),
        entry(userEvents, "Events", "The events you host or have responded to.", limited: false),
        entry(
            userMessengerContact, "Messenger contact", "Lets the app's Page contact you in Messenger.", limited: true),
        entry(gamingProfile, "Gaming profile", "Your gaming profile name and ID.", limited: true),
        entry(gamingUserPicture, "Gaming profile picture", "The picture on your gaming profile.", limited: true),
        entry(pagesShowList, "Pages you manage", "The list of Pages you manage.", limited: false),
        entry(
            pagesReadEngagement, "Page engagement", "Content posted on your Pages and how people engage with it.",
            limited: false),
        entry(
            pagesManagePosts, "Page posts", "Lets the app create, edit and delete posts on your Pages.", limited: false),
        entry(publishActions, "Post for you", "Lets the app post to Facebook as you.", limited: false),
        entry(publishVideo, "Live video", "Lets the app publish live video on your behalf.", limited: false),
        entry(publishPages, "Post as your Pages", "Lets the app post as the Pages you manage.", limited: false),
        entry(managePages, "Manage your Pages", "Lets the app act for the Pages you manage.", limited: false),
        entry(adsRead, "Ads reports", "Performance reports for the ad accounts you can see.", limited: false),
        entry(
            adsManagement, "Ads management", "Lets the app create and manage ads in your ad accounts.", limited: false),
        entry(businessManagement, "Business assets", "The businesses and business assets you manage.", limited: false),
        entry(readInsights, "Insights", "Insights for the Pages, apps and domains you manage.", limited: false),
        entry(
            instagramBasic, "Instagram account", "The profile and media of the Instagram account linked to your Page.",
            limited: false),
    ]

    private static func entry(
        _ name: String, _ title: String, _ reveals: String, review: Bool = true, limited: Bool
    ) -> PermissionInfo {
        PermissionInfo(
            name: name, title: title, reveals: reveals, needsReview: review, allowedInLimitedLogin: limited,
            isPublish: isPublish(name))
    }
}
