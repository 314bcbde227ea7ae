import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Seed 001's relaunch in the middle of a login: one environment starts the login and "dies" while the
/// person is in the browser; a second one, sharing the token cache as a relaunched process shares the
/// disk, receives the callback URL and finishes the login.
@Suite struct RelaunchLoginTests {
    /// The first process: starts a login whose dialog never returns, and hands back its dialog URL.
    static func startLoginThatDies(cache: any TokenCaching) async -> (URL, Task<LoginManagerLoginResult, any Error>) {
        let first = GatehouseKitEnvironment(
            settings: LoginTest.settings(), clock: LoginTestClock(instant: LoginTest.now), tokenCache: cache)
        let dialogs = LoginRecorder<URL>()
        let presenter = ScriptedLoginPresenter { url in
            dialogs.record(url)
            try await Task.sleep(for: .seconds(3600))
            return nil
        }
        let manager = LoginManager(
            defaultAudience: .friends, presenter: presenter, environment: first, graphClient: FakeLoginGraph([:]))
        let task = Task { try await manager.logIn(permissions: ["email"]) }
        await dialogs.waitFor(1)
        return (dialogs.values[0], task)
    }

    static func secondProcess(
        cache: any TokenCaching, clock: any SDKClock = LoginTestClock(instant: LoginTest.now.addingTimeInterval(60))
    ) -> GatehouseKitEnvironment {
        GatehouseKitEnvironment(settings: LoginTest.settings(), clock: clock, tokenCache: cache)
    }

    @Test func pendingLoginIsPersistedWithEverythingTheCallbackNeeds() async throws {
        let cache = InMemoryTokenCache()
        let (dialogURL, task) = await Self.startLoginThatDies(cache: cache)
        defer { task.cancel() }
        let pending = try #require(cache.pendingLogin)
        let dialog = LoginTest.query(dialogURL)
        #expect(pending.permissions == ["email"])
        #expect(pending.redirectURI == "fb\(LoginTest.appID)://authorize/")
        #expect(pending.nonce == dialog["nonce"])
        #expect(CodeVerifier(string: pending.codeVerifier)?.challenge == dialog["code_challenge"])
        #expect(LoginDialogState.challenge(inParameter: dialog["state"]) == pending.challenge)
        #expect(pending.startedAt == LoginTest.now)
        #expect(!pending.isLimited)
    }

    @Test func callbackReachingARelaunchedProcessCompletesTheLoginAndOpensTheWaitingSession() async throws {
        let cache = InMemoryTokenCache()
        let (dialogURL, task) = await Self.startLoginThatDies(cache: cache)
        defer { task.cancel() }
        let second = Self.secondProcess(cache: cache)
        // Seed 001: the relaunched app sets its session handler before handling the URL.
        let session = Session(environment: second, loginProvider: SessionFakes.LoginProvider())
        let log = SessionFakes.HandlerLog()
        session.setStateChangeHandler(log.handler)
        let callback = LoginTest.callback(to: dialogURL, LoginManagerTests.grant)
        let result = try #require(await ApplicationDelegate().completePendingLogin(url: callback, environment: second))
        guard case .success(let granted, let declined, let token) = result else {
            Issue.record("expected success, got \(result)"); return
        }
        #expect(granted == [.publicProfile, .email])
        #expect(declined == [])
        #expect(token?.userID == "500")
        #expect(second.currentAccessToken?.tokenString == "EAAfresh")
        #expect(cache.accessToken?.tokenString == "EAAfresh")
        #expect(session.state == .open)
        #expect(log.states == [.open])
        #expect(cache.pendingLogin == nil)
        // A callback is used once.
        #expect(await ApplicationDelegate().completePendingLogin(url: callback, environment: second) == nil)
    }

    @Test func handleOpenURLFinishesItInTheBackground() async throws {
        let cache = InMemoryTokenCache()
        let (dialogURL, task) = await Self.startLoginThatDies(cache: cache)
        defer { task.cancel() }
        let second = Self.secondProcess(cache: cache)
        let callback = LoginTest.callback(to: dialogURL, LoginManagerTests.grant)
        let handled = GatehouseKitEnvironment.$taskOverride.withValue(second) {
            ApplicationDelegate().handleOpen(url: callback)
        }
        #expect(handled)
        #expect(await SessionKitFixtures.eventually { second.currentAccessToken?.tokenString == "EAAfresh" })
    }

    @Test func forgedOrStaleCallbacksAreRefused() async throws {
        let cache = InMemoryTokenCache()
        let (dialogURL, task) = await Self.startLoginThatDies(cache: cache)
        defer { task.cancel() }
        let saved = try #require(cache.pendingLogin)
        // A callback that does not echo the state: LoginError 308, nothing stored.
        let forged = LoginTest.callback(to: dialogURL, LoginManagerTests.grant, echoState: false)
        let second = Self.secondProcess(cache: cache)
        let result = try #require(await ApplicationDelegate().completePendingLogin(url: forged, environment: second))
        guard case .failed(let error) = result else { Issue.record("expected failure, got \(result)"); return }
        #expect(error as? LoginError == LoginError(.badChallengeString))
        #expect(second.currentAccessToken == nil)
        // Older than an hour: dropped.
        cache.pendingLogin = saved
        let late = Self.secondProcess(
            cache: cache, clock: LoginTestClock(instant: LoginTest.now.addingTimeInterval(3601)))
        let callback = LoginTest.callback(to: dialogURL, LoginManagerTests.grant)
        #expect(await ApplicationDelegate().completePendingLogin(url: callback, environment: late) == nil)
        #expect(late.currentAccessToken == nil)
        // Not a login callback: ignored.
        cache.pendingLogin = saved
        #expect(
            await ApplicationDelegate().completePendingLogin(
                url: URL(string: "https://example.com/authorize")!, environment: second) == nil)
        #expect(cache.pendingLogin == saved)
    }

    @Test func aFinishedLoginLeavesNothingPending() async throws {
        let cache = InMemoryTokenCache()
        let environment = GatehouseKitEnvironment(
            settings: LoginTest.settings(), clock: LoginTestClock(instant: LoginTest.now), tokenCache: cache)
        let seenWhileShowing = LoginRecorder<Bool>()
        let presenter = ScriptedLoginPresenter { url in
            seenWhileShowing.record(cache.pendingLogin != nil)
            return LoginTest.callback(to: url, LoginManagerTests.grant)
        }
        _ = try await LoginManagerTests.manager(presenter, environment: environment).logIn(permissions: ["email"])
        #expect(seenWhileShowing.values == [true])
        #expect(cache.pendingLogin == nil)
        #expect(cache.accessToken?.tokenString == "EAAfresh")
    }
}
