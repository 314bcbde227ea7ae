import Foundation

/// A permission Facebook removed: asked for at a version before ``removedIn`` it is granted like any other;
/// from ``removedIn`` on the login dialog refuses it with ``Permission/invalidScopesMessage(_:)``.
package struct RetiredPermission: Sendable, Equatable {
    /// The consent page's entry, as for a current permission.
    package var info: PermissionInfo
    /// The first Graph API version that no longer has it, e.g. `v2.4`.
    package var removedIn: String
}

extension Permission {
    /// The extended permissions the seeds (2012-2014, Graph v1.0/v2.0) ask for that Facebook has since removed.
    ///
    /// All of them were deprecated with v2.3 and are gone from v2.4 (released July 8, 2015): the v2.4 changelog
    /// and upgrade guide ("permissions set to be deprecated with v2.3"); restfb issue 886 lists each as
    /// "removed (API 2.3)", and apps asking for them at later versions got "Invalid Scopes: …" (restfb issue
    /// 371, diowa/icare issue 41). `user_likes`, `user_birthday` and `email`, which seed 002 also asks for,
    /// still exist and are in ``catalogue``.
    package static let retired: [RetiredPermission] = [
        retiredEntry("read_stream", "News Feed", "The posts in your News Feed."),
        retiredEntry("user_interests", "Interests", "The interests listed on your profile."),
        retiredEntry("user_activities", "Activities", "The activities listed on your profile."),
        retiredEntry("user_groups", "Groups", "The groups you are a member of."),
        retiredEntry("user_status", "Status updates", "Your status updates."),
        retiredEntry("read_mailbox", "Messages", "Your Facebook messages."),
        retiredEntry("read_friendlists", "Friend lists", "The lists you sorted your friends into."),
        retiredEntry("manage_notifications", "Notifications", "Lets the app read and clear your notifications."),
    ]

    /// The retired permission named `name`, if it is one.
    package static func retiredPermission(_ name: String) -> RetiredPermission? {
        retired.first { $0.info.name == name }
    }

    /// The names among `names` that no longer exist at `version`.
    package static func removed(_ names: [String], at version: String) -> [String] {
        names.filter { name in retiredPermission(name).map { GraphAPIVersion.isAtLeast(version, $0.removedIn) } ?? false
        }
    }

    /// Facebook's login-dialog error for permissions that no longer exist, word for word.
    package static func invalidScopesMessage(_ names: [String]) -> String {
        "Invalid Scopes: \(names.joined(separator: ", ")). This message is only shown to developers. Users of your "
            + "app will ignore these permissions if present. Please read the documentation for valid permissions "
            + "at: https://developers.facebook.com/docs/facebook-login/permissions"
    }

    private static func retiredEntry(_ name: String, _ title: String, _ reveals: String) -> RetiredPermission {
        RetiredPermission(
            info: PermissionInfo(
                name: name, title: title, reveals: reveals, needsReview: true, allowedInLimitedLogin: false,
                isPublish: isPublish(name)),
            removedIn: "v2.4")
    }
}
