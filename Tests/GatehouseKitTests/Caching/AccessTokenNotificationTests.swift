import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport

@Suite("AccessToken.current notifications, expiry and persistence")
struct AccessTokenNotificationTests {
    typealias F = SessionKitFixtures

    @Test("setting the token posts old, new and the user-changed flag")
    func changeNotification() async throws {
        let environment = F.environment()
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        let first = F.token(user: "1", string: "EAA-1")
        let second = F.token(user: "1", string: "EAA-2")
        await F.with(environment) {
            AccessToken.current = first
            AccessToken.current = second
            AccessToken.current = F.token(user: "2", string: "EAA-3")
            AccessToken.current = nil
        }
        let all = changes.all
        try #require(all.count == 4)
        #expect(all[0][AccessTokenChangeOldKey] == nil)
        #expect(all[0][AccessTokenChangeNewKey] as? AccessToken == first)
        #expect(all[0][AccessTokenDidChangeUserIDKey] as? Bool == true)
        #expect(all[1][AccessTokenChangeOldKey] as? AccessToken == first)
        #expect(all[1][AccessTokenChangeNewKey] as? AccessToken == second)
        #expect(all[1][AccessTokenDidChangeUserIDKey] == nil)  // same person, old token still active
        #expect(all[2][AccessTokenDidChangeUserIDKey] as? Bool == true)
        #expect(all[3][AccessTokenChangeNewKey] == nil)
        #expect((all[3][AccessTokenChangeOldKey] as? AccessToken)?.tokenString == "EAA-3")
        #expect(all.allSatisfy { $0[AccessTokenDidExpireKey] == nil })
    }

    @Test("replacing an expired token of the same person counts as a user change")
    func replacingExpiredToken() {
        let clock = F.Clock(Date(timeIntervalSince1970: 1_800_000_000))  // after the fixtures' expiry
        let environment = F.environment(clock: clock)
        environment.setCurrentAccessToken(F.token(user: "1", string: "EAA-1"))
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        environment.setCurrentAccessToken(F.token(user: "1", string: "EAA-2", expires: nil))
        #expect(changes.all.first?[AccessTokenDidChangeUserIDKey] as? Bool == true)
    }

    @Test("setting an equal token posts nothing")
    func equalTokenIsSilent() {
        let environment = F.environment()
        environment.setCurrentAccessToken(F.token())
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        environment.setCurrentAccessToken(F.token())  // a different instance, equal fields
        environment.setCurrentAccessToken(nil)
        environment.setCurrentAccessToken(nil)
        #expect(changes.count == 1)
    }

    @Test("checkAccessTokenExpiry posts old == new with the expiry key once the clock passes expirationDate")
    func expiryWithInjectedClock() throws {
        let clock = F.Clock(Date(timeIntervalSince1970: 1_000))
        let environment = F.environment(clock: clock)
        let token = F.token(expires: Date(timeIntervalSince1970: 2_000))
        environment.setCurrentAccessToken(token)
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)

        environment.checkAccessTokenExpiry()
        #expect(changes.count == 0)
        clock.advance(by: 999)
        environment.checkAccessTokenExpiry()
        #expect(changes.count == 0)
        clock.advance(by: 1)
        environment.checkAccessTokenExpiry()
        let info = try #require(changes.all.first)
        #expect(changes.count == 1)
        #expect(info[AccessTokenDidExpireKey] as? Bool == true)
        #expect(info[AccessTokenChangeOldKey] as? AccessToken == token)
        #expect(info[AccessTokenChangeNewKey] as? AccessToken == token)
        #expect(environment.currentAccessToken == token)  // expiry does not clear the token
    }

    @Test("the expiry timer fires on its own for a token that expires in 0.3 s")
    func realTimer() async throws {
        let environment = F.environment(clock: SystemSDKClock())
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        let started = Date()
        environment.setCurrentAccessToken(F.token(expires: Date().addingTimeInterval(0.3)))
        #expect(await changes.wait(for: 2, timeout: 20))  // generous: the whole suite shares two cores
        let expiry = try #require(changes.all.last)
        #expect(expiry[AccessTokenDidExpireKey] as? Bool == true)
        #expect(Date().timeIntervalSince(started) >= 0.29)
    }

    @Test("replacing the token disarms the old token's timer")
    func replacedTokenTimerDisarmed() async throws {
        let clock = F.Clock(Date(timeIntervalSince1970: 1_000))
        let environment = F.environment(clock: clock)
        environment.setCurrentAccessToken(F.token(string: "EAA-short", expires: clock.now().addingTimeInterval(0.2)))
        let shortTimer = try #require(environment.expiryTimer)
        environment.setCurrentAccessToken(F.token(string: "EAA-long", expires: clock.now().addingTimeInterval(3600)))
        #expect(environment.expiryTimer != shortTimer)
        // Past both expiries: had the short token's timer fired, its check would now post an expiry.
        clock.advance(by: 7200)
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        // The event to wait for: the old timer's task has ended (at once when cancelled, after 0.2 s if it was
        // left armed). Its check would have posted synchronously before that.
        await shortTimer.value
        #expect(shortTimer.isCancelled)
        #expect(changes.count == 0)
    }

    @Test("a new environment (a new process) restores the token from the file cache, and its timer")
    func restoredByNewEnvironment() async throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = F.token(permissions: ["public_profile", "email"], expires: Date().addingTimeInterval(0.4))
        let first = F.environment(clock: SystemSDKClock(), tokenCache: FileTokenCache(directory: directory))
        await F.with(first) { AccessToken.current = token }

        let second = F.environment(clock: SystemSDKClock(), tokenCache: FileTokenCache(directory: directory))
        let changes = F.Recorder(.AccessTokenDidChange, on: second)
        await F.with(second) {
            #expect(AccessToken.current == token)
            #expect(AccessToken.current?.hasGranted(.email) == true)
        }
        #expect(changes.count == 0)  // restoring is not a change
        #expect(await changes.wait(for: 1, timeout: 20))
        #expect(changes.all.first?[AccessTokenDidExpireKey] as? Bool == true)

        await F.with(second) { AccessToken.current = nil }
        let third = F.environment(tokenCache: FileTokenCache(directory: directory))
        #expect(third.currentAccessToken == nil)
    }

    @Test("a task override leaves the installed environment alone")
    func taskOverride() async {
        // Other suites may install process-wide environments concurrently, so this checks only what the
        // override guarantees: it wins inside its task (and child tasks) and is gone outside.
        let environment = F.environment()
        await F.with(environment) {
            #expect(GatehouseKitEnvironment.current === environment)
            await Task { #expect(GatehouseKitEnvironment.current === environment) }.value
        }
        #expect(GatehouseKitEnvironment.taskOverride == nil)
        #expect(GatehouseKitEnvironment.current !== environment)
    }
}
