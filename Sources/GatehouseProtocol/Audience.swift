import Foundation

/// Who sees what an app posts for a person: the `default_audience` the publish step records on the
/// grant, and a post's `privacy`.
///
/// The wire names are the dialog's `default_audience` values (`friends`, `only_me`, `everyone`); a post's
/// `privacy.value` uses Graph's upper-case names (`ALL_FRIENDS`, `SELF`, `EVERYONE`).
package enum Audience: String, Sendable, CaseIterable, Codable {
    case onlyMe = "only_me"
    case friends
    case everyone

    /// Reads a `default_audience` value; nil for anything else.
    package init?(wireName: String) {
        self.init(rawValue: wireName)
    }

    /// The `default_audience` value.
    package var wireName: String { rawValue }

    /// Graph's `privacy.value` for posts with this audience.
    package var privacyValue: String {
        switch self {
        case .onlyMe: "SELF"
        case .friends: "ALL_FRIENDS"
        case .everyone: "EVERYONE"
        }
    }

    /// Reads a post's `privacy.value`; nil for values this server does not model (`CUSTOM`, `FRIENDS_OF_FRIENDS`).
    package init?(privacyValue: String) {
        guard let match = Self.allCases.first(where: { $0.privacyValue == privacyValue.uppercased() }) else {
            return nil
        }
        self = match
    }

    /// Graph's `privacy.description`, also the label on the dialogs' audience selector.
    package var label: String {
        switch self {
        case .onlyMe: "Only me"
        case .friends: "Friends"
        case .everyone: "Public"
        }
    }

    /// Facebook caps what an app posts at the audience the person chose for it: the narrower of the two.
    package func narrowed(to cap: Audience) -> Audience {
        Self.order(self) <= Self.order(cap) ? self : cap
    }

    private static func order(_ audience: Audience) -> Int {
        switch audience {
        case .onlyMe: 0
        case .friends: 1
        case .everyone: 2
        }
    }
}
