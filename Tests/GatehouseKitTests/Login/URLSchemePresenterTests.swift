import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// The URL-scheme presenter's callback routing, with an injected opener and a private `ApplicationDelegate`.
@Suite struct URLSchemePresenterTests {
    static let dialog = URL(string: "http://127.0.0.1:9/v27.0/dialog/oauth?client_id=1")!

    static func presenter(
        suffix: String? = nil, delegate: ApplicationDelegate = ApplicationDelegate(),
        opener: @escaping URLSchemeLoginPresenter.Opener = { _ in true }
    ) -> URLSchemeLoginPresenter {
        URLSchemeLoginPresenter(
            environment: LoginTest.environment(settings: LoginTest.settings(suffix: suffix)),
            applicationDelegate: delegate, opener: opener)
    }

    /// Starts `present` and waits until the opener ran.
    static func presenting(_ presenter: URLSchemeLoginPresenter, opened: LoginRecorder<URL>) async -> Task<
        URL?, any Error
    > {
        let task = Task { try await presenter.present(dialog) }
        await opened.waitFor(1)
        return task
    }

    @Test func redirectURIUsesTheAppSchemeAndSuffix() async throws {
        #expect(try await Self.presenter().prepare() == "fb\(LoginTest.appID)://authorize/")
        #expect(try await Self.presenter(suffix: "lite").prepare() == "fb\(LoginTest.appID)lite://authorize/")
        let noApp = URLSchemeLoginPresenter(
            environment: LoginTest.environment(settings: LoginTest.settings(appID: nil)))
        await #expect(throws: CoreError.self) { try await noApp.prepare() }
    }

    @Test func callbackOnTheAppSchemeResumesTheLogin() async throws {
        let opened = LoginRecorder<URL>()
        let delegate = ApplicationDelegate()
        let presenter = Self.presenter(suffix: "lite", delegate: delegate) { url in
            opened.record(url); return true
        }
        let task = await Self.presenting(presenter, opened: opened)
        #expect(opened.values == [Self.dialog])
        #expect(delegate.isLoginPending)
        #expect(delegate.handleOpen(url: URL(string: "fb\(LoginTest.appID)lite://no-op")!))
        #expect(delegate.isLoginPending)
        let callback = URL(string: "FB\(LoginTest.appID)LITE://authorize/#access_token=t")!
        #expect(delegate.handleOpen(url: callback))
        #expect(try await task.value == callback)
        #expect(!delegate.isLoginPending)
        #expect(!delegate.handleOpen(url: callback))
    }

    @Test func otherSchemesAndHostsAreNotCallbacks() async throws {
        let opened = LoginRecorder<URL>()
        let presenter = Self.presenter { url in
            opened.record(url); return true
        }
        #expect(!presenter.handleOpen(url: URL(string: "fb\(LoginTest.appID)://authorize/")!))
        let task = await Self.presenting(presenter, opened: opened)
        // A scheme that only starts with the app's, without the suffix match, is someone else's.
        #expect(!presenter.handleOpen(url: URL(string: "fb\(LoginTest.appID)x://authorize/#access_token=t")!))
        #expect(try await task.value == nil)

        let second = Task { try await presenter.present(Self.dialog) }
        await opened.waitFor(2)
        #expect(!presenter.handleOpen(url: URL(string: "fb\(LoginTest.appID)://other/#access_token=t")!))
        #expect(try await second.value == nil)
    }

    @Test func returningWithoutCallbackCancelsOnlyAfterTheBrowserOpened() async throws {
        let release = LoginTestGate()
        let opened = LoginRecorder<URL>()
        let presenter = Self.presenter { url in
            opened.record(url)
            await release.wait()
            return true
        }
        let task = await Self.presenting(presenter, opened: opened)
        presenter.handleDidBecomeActive()
        release.open()
        // Wait for the opener's answer to land, not for a wall-clock delay: on a loaded machine 50 ms was
        // sometimes too short, and the login then waited forever.
        await LoginManagerTests.eventually { presenter.isDialogOpen }
        #expect(presenter.isDialogOpen)
        presenter.handleDidBecomeActive()
        #expect(try await task.value == nil)
    }

    @Test func becomingActiveBeforeOpeningKeepsWaiting() async throws {
        let release = LoginTestGate()
        let opened = LoginRecorder<URL>()
        let presenter = Self.presenter { url in
            opened.record(url)
            await release.wait()
            return true
        }
        let task = await Self.presenting(presenter, opened: opened)
        presenter.handleDidBecomeActive()
        let callback = URL(string: "fb\(LoginTest.appID)://authorize/?code=c")!
        #expect(presenter.handleOpen(url: callback))
        release.open()
        #expect(try await task.value == callback)
    }

    @Test func failedOpenIsBrowserUnavailable() async {
        let presenter = Self.presenter { _ in false }
        await #expect(throws: CoreError(.browserUnavailable, message: "the login dialog could not be opened")) {
            try await presenter.present(Self.dialog)
        }
    }

    @Test func newerPresentEndsTheOlderOne() async throws {
        let opened = LoginRecorder<URL>()
        let presenter = Self.presenter { url in
            opened.record(url); return true
        }
        let first = await Self.presenting(presenter, opened: opened)
        let second = Task { try await presenter.present(Self.dialog) }
        #expect(try await first.value == nil)
        await opened.waitFor(2)
        let callback = URL(string: "fb\(LoginTest.appID)://authorize/#access_token=t")!
        #expect(presenter.handleOpen(url: callback))
        #expect(try await second.value == callback)
    }

    @Test func cancellingThePresentingTaskReturnsNil() async throws {
        let opened = LoginRecorder<URL>()
        let presenter = Self.presenter { url in
            opened.record(url); return true
        }
        let task = await Self.presenting(presenter, opened: opened)
        task.cancel()
        #expect(try await task.value == nil)
    }
}

/// `LoginRecoveryAttempter` against a fake login provider.
@Suite struct LoginRecoveryAttempterTests {
    final class FakeLoginProvider: LoginProviding, @unchecked Sendable {
        var defaultAudience: DefaultAudience = .friends
        let answer: LoginResult
        let calls = LoginRecorder<String>()
        init(_ answer: LoginResult) { self.answer = answer }
        func logIn(
            viewController: AnyObject?, configuration: LoginConfiguration?, completion: @escaping LoginResultBlock
        ) {
            let names = configuration?.requestedPermissions.map(\.name).sorted() ?? []
            calls.record(
                "\(names) \(configuration?.authType?.rawValue ?? "nil") \(configuration?.tracking == .enabled)")
            completion(answer)
        }
        func logOut() {}
    }

    static func environment(withToken: Bool) -> GatehouseKitEnvironment {
        let environment = LoginTest.environment()
        if withToken { environment.setCurrentAccessToken(LoginTest.token(permissions: ["email", "public_profile"])) }
        return environment
    }

    @Test func reasksForTheTokensPermissions() async {
        let fake = FakeLoginProvider(.success(granted: [.email], declined: [], token: nil))
        let attempter = LoginRecoveryAttempter(loginProvider: fake, environment: Self.environment(withToken: true))
        #expect(await attempter.attemptRecovery())
        #expect(fake.calls.values == ["[\"email\", \"public_profile\"] rerequest true"])
        #expect(await attempter.attemptRecovery(permissions: ["user_friends"]))
        #expect(fake.calls.values.last == "[\"user_friends\"] rerequest true")
    }

    @Test func declinesCancelsAndErrorsAreNotRecovery() async {
        for answer in [
            LoginResult.success(granted: [], declined: [.email], token: nil), .cancelled, .failed(CoreError(.network)),
        ] {
            let attempter = LoginRecoveryAttempter(
                loginProvider: FakeLoginProvider(answer), environment: Self.environment(withToken: true))
            #expect(await attempter.attemptRecovery() == false)
        }
    }

    @Test func withoutPermissionsNothingIsAsked() async {
        let fake = FakeLoginProvider(.cancelled)
        #expect(
            await LoginRecoveryAttempter(loginProvider: fake, environment: Self.environment(withToken: false))
                .attemptRecovery() == false)
        #expect(await LoginRecoveryAttempter(loginProvider: fake).attemptRecovery(permissions: []) == false)
        #expect(fake.calls.values.isEmpty)
    }
}
