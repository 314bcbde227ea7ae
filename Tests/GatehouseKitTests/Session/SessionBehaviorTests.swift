import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// `Session.open(behavior:)`, error categories reaching the handler, and the seeds' other session entry points.
@Suite("Session: login behaviours, error categories, per-session caches")
struct SessionBehaviorTests {
    typealias F = SessionKitFixtures
    typealias Fakes = SessionFakes

    @Test("open(behavior:) skips an unavailable dialog, opens with the next, and caches the login type")
    func behaviourFallsBackAndOpens() async throws {
        let cache = InMemoryTokenCache()
        let environment = F.environment(tokenCache: cache)
        let native = FakeDialog(.nativeApp, available: false, outcome: .cancelled)
        let browser = FakeDialog(.browser, outcome: .success(F.token(permissions: ["public_profile", "email"])))
        let session = Session(permissions: ["email"], environment: environment, loginProvider: nil)
        let log = Fakes.HandlerLog()
        session.open(behavior: .withNoFallbackToWebView, presenters: [native, browser], completion: log.handler)
        #expect(await F.eventually { log.states.last == .open })
        #expect(log.states == [.createdOpening, .open])
        #expect(native.shown == 0 && browser.shown == 1)
        #expect(session.accessToken?.loginType == .facebookViaSafari)
        #expect(cache.accessToken?.loginType == .facebookViaSafari)
    }

    @Test("a cancelled dialog closes the session with an error categorised as user-cancelled, and nothing falls back")
    func cancelIsUserCancelled() async throws {
        let environment = F.environment()
        let native = FakeDialog(.nativeApp, outcome: .cancelled)
        let browser = FakeDialog(.browser, outcome: .success(F.token()))
        let session = Session(environment: environment)
        let log = Fakes.HandlerLog()
        session.open(behavior: .withFallbackToWebView, presenters: [native, browser], completion: log.handler)
        #expect(await F.eventually { log.states.last == .closedLoginFailed })
        #expect(browser.shown == 0)
        let error = try #require(log.errors.last ?? nil)
        #expect(ErrorRecovery.category(for: error) == .userCancelled)
    }

    @Test("a dialog abandoned by returning to the app is user-cancelled too")
    func abandonedIsUserCancelled() async throws {
        let provider = Fakes.LoginProvider()
        let session = Session(environment: F.environment(), loginProvider: provider)
        let log = Fakes.HandlerLog()
        session.open(allowLoginUI: true, completion: log.handler)
        #expect(await F.eventually { provider.waitingCount == 1 })
        session.handleDidBecomeActive()
        #expect(log.states == [.createdOpening, .closedLoginFailed])
        let error = try #require(log.errors.last ?? nil)
        #expect(ErrorRecovery.category(for: error) == .userCancelled)
        provider.answer(.cancelled)
    }

    @Test("a token killed by the server (password changed) closes an open session with a reopen-session error")
    func closedFromOutsideIsLoginRequired() async throws {
        let token = F.token(permissions: ["public_profile"])
        let environment = F.environment(tokenCache: InMemoryTokenCache(accessToken: token))
        let session = Session(environment: environment)
        let log = Fakes.HandlerLog()
        session.open(allowLoginUI: false, completion: log.handler)
        #expect(session.state == .open)
        let body: JSONValue = [
            "error": [
                "message": "Error validating access token: password changed", "type": "OAuthException",
                "code": 190, "error_subcode": 460,
            ]
        ]
        let graphError = try #require(GraphAPIError(body: body, httpStatusCode: 400))
        // The rule GraphRequestConnection applies to a 190 reply for the current person's own token.
        TokenInvalidation.action(
            for: graphError, requestToken: token.tokenString, currentToken: token.tokenString, flags: []
        )
        .apply(in: environment, cause: graphError)
        #expect(session.state == .closed)
        #expect(log.states == [.open, .closed])
        let error = try #require(log.errors.last ?? nil)
        #expect(ErrorRecovery.category(for: error) == .loginRequired)
        #expect(ErrorRecovery.userMessage(for: error) == "Your password has changed. Please log in again.")
        #expect(ErrorRecovery.shouldNotifyUser(for: error))
    }

    @Test("permissions set before open are what the first login asks for; later they are ignored")
    func permissionsSettableBeforeOpen() async throws {
        let provider = Fakes.LoginProvider([.success(F.token(permissions: ["public_profile", "user_birthday"]))])
        let session = Session(permissions: ["public_profile"], environment: F.environment(), loginProvider: provider)
        session.permissions = ["public_profile", "user_birthday"]
        #expect(session.permissions == ["public_profile", "user_birthday"])
        try await session.open()
        #expect(provider.calls.map(\.permissions) == [["public_profile", "user_birthday"]])
        session.permissions = ["email"]
        #expect(session.permissions == ["public_profile", "user_birthday"])
    }

    @Test("a session with its own token cache keeps its token there, not in the app-wide one")
    func perSessionTokenCache() async throws {
        let appWide = InMemoryTokenCache()
        let environment = F.environment(tokenCache: appWide)
        let own = InMemoryTokenCache()
        let provider = Fakes.LoginProvider([.success(F.token(user: "7", permissions: ["public_profile"]))])
        let session = await F.with(environment) {
            Session(
                appID: "555", permissions: ["public_profile"], urlSchemeSuffix: "free", tokenCache: own,
                loginProvider: provider)
        }
        #expect(session.appID == "555")
        #expect(session.environment.settings.appURLScheme == "fb555free")
        try await session.open()
        #expect(own.accessToken?.userID == "7")
        #expect(appWide.accessToken == nil)
        #expect(environment.currentAccessToken == nil)
    }
}

extension GraphSerialTests {
    /// Changes `Session.defaultLoginProvider` (process-wide), so it runs serialized with the other suites that do.
    @Suite struct SessionPublishOpenTests {
        typealias F = SessionKitFixtures
        typealias Fakes = SessionFakes

        @Test(
            "openActiveSession(withPublishPermissions:) asks for publish permissions with the audience; read ones are refused"
        )
        func openActiveSessionWithPublishPermissions() async {
            let environment = F.environment()
            let provider = Fakes.LoginProvider([.success(F.token(permissions: ["publish_actions"]))])
            let saved = Session.defaultLoginProvider
            defer { Session.defaultLoginProvider = saved }
            await F.with(environment) {
                Session.defaultLoginProvider = provider
                let log = Fakes.HandlerLog()
                let refused = Session.openActiveSession(
                    withPublishPermissions: ["email"], defaultAudience: .onlyMe, allowLoginUI: true,
                    completionHandler: log.handler)
                #expect(!refused)
                #expect((log.errors.first ?? nil) as? SessionError == .readPermissionsInPublishRequest)
                let opened = Fakes.HandlerLog()
                Session.openActiveSession(
                    withPublishPermissions: ["publish_actions"], defaultAudience: .onlyMe, allowLoginUI: true,
                    completionHandler: opened.handler)
                #expect(await F.eventually { opened.states.last == .open })
                #expect(provider.calls == [.init(permissions: ["publish_actions"], authType: nil, audience: .onlyMe)])
                #expect(Session.activeSession.isOpen)
            }
        }
    }
}
