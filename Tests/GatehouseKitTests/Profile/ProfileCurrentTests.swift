import Foundation
import Testing
import GatehouseKit
import GatehouseKitTestSupport

@Suite("Profile.current, its notification, cache and token-change updates")
struct ProfileCurrentTests {
    typealias F = SessionKitFixtures

    static func profile(_ user: String, refreshed: Date = Date(timeIntervalSince1970: 1_749_999_000)) -> Profile {
        Profile(
            userID: user, firstName: "First", middleName: nil, lastName: "Last", name: "First Last", linkURL: nil,
            refreshDate: refreshed)
    }

    /// Settings whose server refuses connections: any request the test did not expect fails loudly.
    static func unreachable() -> Settings {
        let settings = Settings()
        settings.serverURL = URL(string: "http://127.0.0.1:9")!
        return settings
    }

    @Test("setting a different profile posts old and new; an equal one posts nothing")
    func notification() async throws {
        let environment = F.environment()
        let changes = F.Recorder(.ProfileDidChange, on: environment)
        await F.with(environment) {
            Profile.current = Self.profile("1")
            Profile.current = Self.profile("1")
            Profile.current = Self.profile("2")
            Profile.current = nil
        }
        let all = changes.all
        try #require(all.count == 3)
        #expect(all[0][ProfileChangeNewKey] as? Profile == Self.profile("1"))
        #expect(all[0][ProfileChangeOldKey] == nil)
        #expect(all[1][ProfileChangeOldKey] as? Profile == Self.profile("1"))
        #expect(all[1][ProfileChangeNewKey] as? Profile == Self.profile("2"))
        #expect(all[2][ProfileChangeNewKey] == nil)
        #expect(
            Notification.Name.ProfileDidChange.rawValue
                == "com.facebook.sdk.FBSDKProfile.FBSDKProfileDidChangeNotification")
        #expect(ProfileChangeNewKey == "FBSDKProfileNew" && ProfileChangeOldKey == "FBSDKProfileOld")
    }

    @Test("the profile comes back in a new environment from the file cache")
    func cachedAcrossLaunches() async throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        await F.with(F.environment(profileCache: FileProfileCache(directory: directory))) {
            Profile.current = Self.profile("1")
        }
        await F.with(F.environment(profileCache: FileProfileCache(directory: directory))) {
            #expect(Profile.current == Self.profile("1"))
            Profile.current = nil
        }
        #expect(FileProfileCache(directory: directory).profile == nil)
    }

    @Test("loadCurrentProfile without a token, or with a fresh profile of the same person, answers at once")
    func noFetchNeeded() async throws {
        let clock = F.Clock(Date(timeIntervalSince1970: 1_750_000_000))
        let environment = F.environment(clock: clock, settings: Self.unreachable())
        try await F.with(environment) { () async throws in
            let nothing = try await Profile.loadCurrentProfile()
            #expect(nothing == nil)
            Profile.current = Self.profile("100")
            let withoutToken = try await Profile.loadCurrentProfile()
            #expect(withoutToken == Self.profile("100"))
            AccessToken.current = F.token(user: "100")
            let answered = F.Recorder(.ProfileDidChange, on: environment)
            let result = Answer()
            Profile.loadCurrentProfile { profile, error in result.set(profile, error) }
            #expect(result.calls == 1)  // synchronously
            #expect(result.profile == Self.profile("100"))
            #expect(result.error == nil)
            #expect(answered.count == 0)
        }
    }

    /// One completion's arguments.
    final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var values: (calls: Int, profile: Profile?, error: (any Error)?) = (0, nil, nil)
        func set(_ profile: Profile?, _ error: (any Error)?) {
            lock.withLock { values = (values.calls + 1, profile, error) }
        }
        var calls: Int { lock.withLock { values.calls } }
        var profile: Profile? { lock.withLock { values.profile } }
        var error: (any Error)? { lock.withLock { values.error } }
    }

    @Test("a failed load clears the current profile")
    func failedLoadClears() async throws {
        let environment = F.environment(settings: Self.unreachable())
        await F.with(environment) {
            Profile.current = Self.profile("other")
            AccessToken.current = F.token(user: "100")
            await #expect(throws: CoreError.self) { try await Profile.loadCurrentProfile() }
            #expect(Profile.current == nil)
        }
    }

    @Test("updates on token change are off by default, per environment, and a nil token clears the profile")
    func updatesOnTokenChange() async throws {
        let environment = F.environment(settings: Self.unreachable())
        let other = F.environment()
        await F.with(environment) {
            #expect(!Profile.isUpdatedWithAccessTokenChange)
            Profile.current = Self.profile("1")
            AccessToken.current = F.token(user: "1")
            AccessToken.current = nil
            #expect(Profile.current == Self.profile("1"))  // not following yet
            Profile.enableUpdatesOnAccessTokenChange(true)
            #expect(Profile.isUpdatedWithAccessTokenChange)
        }
        await F.with(other) { #expect(!Profile.isUpdatedWithAccessTokenChange) }
        await F.with(environment) {
            let changes = F.Recorder(.ProfileDidChange, on: environment)
            AccessToken.current = F.token(user: "1")
            AccessToken.current = nil
            #expect(Profile.current == nil)
            #expect(changes.all.last?[ProfileChangeOldKey] as? Profile == Self.profile("1"))
            Profile.isUpdatedWithAccessTokenChange = false
            Profile.current = Self.profile("2")
            AccessToken.current = F.token(user: "2")
            AccessToken.current = nil
            #expect(Profile.current == Self.profile("2"))
        }
    }
}
