import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// What ``WebAuthenticationSessionPresenter`` decides, without AuthenticationServices.
@Suite struct WebAuthenticationCompletionTests {
    struct SessionFailure: LocalizedError {
        var errorDescription: String? { "presentation context invalid" }
    }

    @Test func theCallbackSchemeIsTheAppsAndNeedsAnAppID() throws {
        let environment = LoginTest.environment(settings: LoginTest.settings(suffix: "lite"))
        #expect(try WebAuthenticationCompletion.callbackScheme(environment: environment) == "fb\(LoginTest.appID)lite")
        #expect(throws: CoreError(.invalidArgument, message: "Settings.appID (FacebookAppID) is not set")) {
            try WebAuthenticationCompletion.callbackScheme(
                environment: LoginTest.environment(settings: LoginTest.settings(appID: nil)))
        }
    }

    @Test func theCompletionBecomesTheDialogsAnswer() throws {
        let callback = URL(string: "fb\(LoginTest.appID)://authorize/?code=c")!
        let answered = WebAuthenticationCompletion.result(callback: callback, error: nil, cancelledByPerson: false)
        #expect(try answered.get() == callback)
        // The person cancelled: no error, no callback.
        let cancelled = WebAuthenticationCompletion.result(
            callback: nil, error: SessionFailure(), cancelledByPerson: true)
        #expect(try cancelled.get() == nil)
        // Any other failure is CoreError 12 with the session's description.
        let failed = WebAuthenticationCompletion.result(
            callback: nil, error: SessionFailure(), cancelledByPerson: false)
        #expect(throws: CoreError(.browserUnavailable, message: "presentation context invalid")) { try failed.get() }
        #expect(
            WebAuthenticationCompletion.notStarted
                == CoreError(.browserUnavailable, message: "the web authentication session did not start"))
    }
}
