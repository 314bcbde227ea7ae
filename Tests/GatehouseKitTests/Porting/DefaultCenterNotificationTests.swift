import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Issue 30, item 1: an app observes the SDK's changes the way seed 003 shows, on
/// `NotificationCenter.default` with `object: nil`, and hears Facebook's userInfo keys.
@Suite struct DefaultCenterNotificationTests {
    /// What an app's observer on `NotificationCenter.default` heard. Tests run in parallel and share the
    /// default centre, so the checks below pick out this test's environment by the notification's object.
    final class AppObserver: @unchecked Sendable {
        private let lock = NSLock()
        private var heard: [Notification] = []
        private var tokens: [any NSObjectProtocol] = []

        init(_ names: [Notification.Name]) {
            for name in names {
                // Seed 003's registration, with `queue: nil` for `.main` (no main run loop in the test runner).
                tokens.append(
                    NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                        self?.lock.withLock { self?.heard.append(note) }
                    })
            }
        }

        deinit { tokens.forEach(NotificationCenter.default.removeObserver) }

        func heard(from environment: GatehouseKitEnvironment) -> [Notification] {
            lock.withLock { heard.filter { ($0.object as AnyObject?) === environment } }
        }
    }

    @Test func loginLogoutAndProfileChangeReachTheDefaultCentreWithFacebooksKeys() async throws {
        let observer = AppObserver([.AccessTokenDidChange, .ProfileDidChange])
        let environment = LoginTest.environment()
        let manager = LoginManagerTests.manager(LoginManagerTests.granting(), environment: environment)

        let result = try await manager.logIn(permissions: ["email"])
        let token = try #require(result.token)
        let profile = Profile(
            userID: "500", firstName: "Ada", middleName: nil, lastName: nil, name: "Ada", linkURL: nil,
            refreshDate: LoginTest.now)
        GatehouseKitEnvironment.$taskOverride.withValue(environment) { Profile.current = profile }
        manager.logOut()

        let notes = observer.heard(from: environment)
        #expect(
            notes.map(\.name) == [.AccessTokenDidChange, .ProfileDidChange, .AccessTokenDidChange, .ProfileDidChange])
        #expect(
            Notification.Name.AccessTokenDidChange.rawValue
                == "com.facebook.sdk.FBSDKAccessTokenData.FBSDKAccessTokenDidChangeNotification")
        #expect(
            Notification.Name.ProfileDidChange.rawValue
                == "com.facebook.sdk.FBSDKProfile.FBSDKProfileDidChangeNotification")
        try #require(notes.count == 4)
        // Facebook's key strings (FBSDKAccessToken.m, FBSDKProfileNotifications.m), written out as an app's
        // Objective-C-era code may have them.
        let login = notes[0].userInfo ?? [:]
        #expect(login["FBSDKAccessToken"] as? AccessToken == token)
        #expect(login["FBSDKAccessTokenOld"] == nil)
        #expect(login["FBSDKAccessTokenDidChangeUserIDKey"] as? Bool == true)
        let profileChange = notes[1].userInfo ?? [:]
        #expect(profileChange["FBSDKProfileNew"] as? Profile == profile)
        #expect(profileChange["FBSDKProfileOld"] == nil)
        let logout = notes[2].userInfo ?? [:]
        #expect(logout["FBSDKAccessToken"] == nil)
        #expect(logout["FBSDKAccessTokenOld"] as? AccessToken == token)
        #expect(logout["FBSDKAccessTokenDidChangeUserIDKey"] as? Bool == true)
        let profileCleared = notes[3].userInfo ?? [:]
        #expect(profileCleared["FBSDKProfileOld"] as? Profile == profile)
        #expect(profileCleared["FBSDKProfileNew"] == nil)
        #expect(
            [AccessTokenChangeNewKey, AccessTokenChangeOldKey, AccessTokenDidChangeUserIDKey, AccessTokenDidExpireKey]
                == [
                    "FBSDKAccessToken", "FBSDKAccessTokenOld", "FBSDKAccessTokenDidChangeUserIDKey",
                    "FBSDKAccessTokenDidExpireKey",
                ])
    }
}
