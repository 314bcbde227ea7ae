import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// The seeds' dialog order and fallback rule, with fake dialogs.
@Suite struct LoginBehaviorTests {
    @Test func behavioursListTheSeedsOrder() {
        #expect(LoginBehavior.withNoFallbackToWebView.dialogs == [.nativeApp, .browser, .device])
        #expect(LoginBehavior.useSystemAccountIfPresent.dialogs == [.nativeApp, .browser, .device])
        #expect(LoginBehavior.withFallbackToWebView.dialogs == [.nativeApp, .browser, .webView, .device])
        #expect(LoginBehavior.forcingWebView.dialogs == [.webView])
        #expect(LoginBehavior.forcingSafari.dialogs == [.browser])
        #expect(LoginBehavior.forcingDeviceLogin.dialogs == [.device])
    }

    @Test func unavailableDialogIsSkippedForTheNext() async throws {
        let native = FakeDialog(.nativeApp, available: false, outcome: .cancelled)
        let browser = FakeDialog(.browser, outcome: .success(BehaviorFixtures.token()))
        let device = FakeDialog(.device, outcome: .cancelled)
        let log = StepLog()
        let login = LoginBehaviorLogin(
            behavior: .withNoFallbackToWebView, presenters: [native, browser, device], onStep: log.record)
        let outcome = await login.logIn(permissions: ["email"], authType: nil, defaultAudience: .friends)
        guard case .success(let token) = outcome else { Issue.record("expected success, got \(outcome)"); return }
        #expect(token.loginType == .facebookViaSafari)
        #expect(token.tokenString == "EAA-behavior")
        #expect(log.steps == [.skipped(.nativeApp), .shown(.browser)])
        #expect(native.shown == 0)
        #expect(device.availabilityChecks == 0)
    }

    @Test func cancelStopsWithoutFallingBack() async {
        let native = FakeDialog(.nativeApp, outcome: .cancelled)
        let browser = FakeDialog(.browser, outcome: .success(BehaviorFixtures.token()))
        let log = StepLog()
        let login = LoginBehaviorLogin(
            behavior: .withFallbackToWebView, presenters: [native, browser], onStep: log.record)
        let outcome = await login.logIn(permissions: [], authType: nil, defaultAudience: .friends)
        guard case .cancelled = outcome else { Issue.record("expected cancelled, got \(outcome)"); return }
        #expect(browser.shown == 0)
        #expect(log.steps == [.shown(.nativeApp)])
    }

    @Test func dialogThatCouldNotShowFallsThroughButRealFailureStops() async {
        let native = FakeDialog(.nativeApp, outcome: .failed(CoreError(.browserUnavailable)))
        let browser = FakeDialog(.browser, outcome: .failed(LoginError(.badChallengeString)))
        let device = FakeDialog(.device, outcome: .success(BehaviorFixtures.token()))
        let login = LoginBehaviorLogin(behavior: .withNoFallbackToWebView, presenters: [native, browser, device])
        let outcome = await login.logIn(permissions: [], authType: nil, defaultAudience: .friends)
        guard case .failed(let error) = outcome else { Issue.record("expected failure, got \(outcome)"); return }
        #expect(error as? LoginError == LoginError(.badChallengeString))
        #expect(native.shown == 1 && browser.shown == 1 && device.shown == 0)
    }

    @Test func webViewIsOnlyTriedByBehavioursThatAllowIt() async {
        let webView = FakeDialog(.webView, outcome: .success(BehaviorFixtures.token()))
        let device = FakeDialog(.device, outcome: .success(BehaviorFixtures.token()))
        let noWebView = LoginBehaviorLogin(behavior: .withNoFallbackToWebView, presenters: [webView, device])
        guard
            case .success(let viaDevice) = await noWebView.logIn(
                permissions: [], authType: nil, defaultAudience: .friends)
        else {
            Issue.record("expected success"); return
        }
        #expect(viaDevice.loginType == .device)
        #expect(webView.shown == 0)
        let forcing = LoginBehaviorLogin(behavior: .forcingWebView, presenters: [webView, device])
        guard
            case .success(let viaWebView) = await forcing.logIn(
                permissions: [], authType: nil, defaultAudience: .friends)
        else {
            Issue.record("expected success"); return
        }
        #expect(viaWebView.loginType == .webView)
        #expect(device.shown == 1)
    }

    @Test func nothingAvailableFailsWithDialogUnavailable() async {
        let native = FakeDialog(.nativeApp, available: false, outcome: .cancelled)
        let login = LoginBehaviorLogin(behavior: .forcingSafari, presenters: [native])
        guard case .failed(let error) = await login.logIn(permissions: [], authType: nil, defaultAudience: .friends)
        else {
            Issue.record("expected failure"); return
        }
        #expect((error as? CoreError)?.code == .dialogUnavailable)
        #expect(native.availabilityChecks == 0)
    }

    @Test func urlSchemePresenterIsUnavailableOnLinuxWithoutAnOpenerOrAppID() {
        let environment = LoginTest.environment()
        #expect(URLSchemeLoginPresenter(environment: environment, opener: { _ in true }).isAvailable)
        let noApp = LoginTest.environment(settings: LoginTest.settings(appID: nil))
        #expect(!URLSchemeLoginPresenter(environment: noApp, opener: { _ in true }).isAvailable)
        #if !canImport(UIKit) && !canImport(AppKit)
        #expect(!URLSchemeLoginPresenter(environment: environment).isAvailable)
        #endif
    }

    @Test func deviceDialogNeedsAClientToken() async {
        #expect(await DeviceLoginDialog(environment: LoginTest.environment()).isAvailable())
        let settings = LoginTest.settings()
        settings.clientToken = nil
        #expect(await !DeviceLoginDialog(environment: LoginTest.environment(settings: settings)).isAvailable())
    }
}
