import Foundation

extension Notification.Name {
    /// Posted when `Profile.current` changes, with ``ProfileChangeNewKey`` and ``ProfileChangeOldKey``.
    public static let ProfileDidChange = Notification.Name(
        "com.facebook.sdk.FBSDKProfile.FBSDKProfileDidChangeNotification")
}

/// `.ProfileDidChange` userInfo key of the new profile (absent when it became nil).
public let ProfileChangeNewKey = "FBSDKProfileNew"
/// `.ProfileDidChange` userInfo key of the previous profile (absent when there was none).
public let ProfileChangeOldKey = "FBSDKProfileOld"

extension Profile {
    /// The current person's profile. Setting a different one writes the profile cache (so it is
    /// back on the next launch) and posts `.ProfileDidChange`.
    public static var current: Profile? {
        get { GatehouseKitEnvironment.current.currentProfile }
        set { setCurrent(newValue, in: .current) }
    }

    static func setCurrent(_ profile: Profile?, in environment: GatehouseKitEnvironment) {
        let old = environment.replaceCurrentProfile(profile)
        guard old != profile else { return }
        var info: [String: Any] = [:]
        if let profile { info[ProfileChangeNewKey] = profile }
        if let old { info[ProfileChangeOldKey] = old }
        environment.post(.ProfileDidChange, userInfo: info)
    }

    /// Whether `Profile.current` follows `AccessToken.current`: a new token loads its person's
    /// profile (by the rules of ``loadCurrentProfile(completion:)``), no token clears it. Off by
    /// default; kept per environment.
    public static var isUpdatedWithAccessTokenChange: Bool {
        get { ProfileTokenObserver.isEnabled(in: .current) }
        set { ProfileTokenObserver.setEnabled(newValue, in: .current) }
    }

    /// The older name of ``isUpdatedWithAccessTokenChange`` (Facebook deprecated it in favour of the property).
    public static func enableUpdatesOnAccessTokenChange(_ enable: Bool) {
        isUpdatedWithAccessTokenChange = enable
    }
}

/// The `.AccessTokenDidChange` observer behind `isUpdatedWithAccessTokenChange`, one per environment.
final class ProfileTokenObserver: @unchecked Sendable {
    private static let observers = EnvironmentScoped<ProfileTokenObserver>()

    private let center: NotificationCenter
    private let token: any NSObjectProtocol

    private init(environment: GatehouseKitEnvironment) {
        center = environment.notificationCenter
        token = environment.observe(.AccessTokenDidChange) { [weak environment] note in
            guard let environment else { return }
            if let accessToken = note.userInfo?[AccessTokenChangeNewKey] as? AccessToken {
                ProfileLoader(environment: environment).load(token: accessToken, completion: nil)
            } else {
                Profile.setCurrent(nil, in: environment)
            }
        }
    }

    deinit { center.removeObserver(token) }

    static func isEnabled(in environment: GatehouseKitEnvironment) -> Bool {
        observers.value(for: environment) != nil
    }

    static func setEnabled(_ enabled: Bool, in environment: GatehouseKitEnvironment) {
        if enabled {
            _ = observers.value(for: environment) { ProfileTokenObserver(environment: environment) }
        } else {
            observers.set(nil, for: environment)
        }
    }
}
