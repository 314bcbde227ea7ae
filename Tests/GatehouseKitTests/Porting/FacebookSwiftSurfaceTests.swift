import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Issue 30, item 7: every public initialiser and method overload of Facebook's current Swift API
/// (facebook-ios-sdk, FBSDKCoreKit/FBSDKLoginKit 18) on the nine types an app calls, with Facebook's
/// labels, called once each. Where a call has an effect GatehouseKit can show, the test checks it.
@Suite struct FacebookSwiftSurfaceTests {
    static let appID = LoginTest.appID

    @Test func accessTokenAndAuthenticationToken() async {
        let environment = LoginTest.environment()
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            let token = AccessToken(
                tokenString: "EAA-surface", permissions: ["email"], declinedPermissions: ["user_friends"],
                expiredPermissions: [],
                appID: Self.appID, userID: "9", expirationDate: nil, refreshDate: nil, dataAccessExpirationDate: nil)
            #expect(token.hasGranted(permission: "email"))
            #expect(token.hasGranted(.email))
            #expect(!token.hasGranted(permission: "user_friends"))
            #expect(token.isEqual(to: token))
            #expect(!token.isExpired && !token.isDataAccessExpired)
            AccessToken.current = token
            #expect(AccessToken.isCurrentAccessTokenActive)
            #expect(AccessToken.tokenCache?.accessToken == token)

            let idToken = AuthenticationToken(tokenString: "a.b.c", nonce: "n", graphDomain: "gaming")
            let shorter = AuthenticationToken(tokenString: "a.b.c", nonce: "n")
            #expect(shorter.graphDomain == "facebook" && idToken.graphDomain == "gaming")
            #expect(idToken.claims() == nil)  // not a readable JWT
            AuthenticationToken.current = idToken
            #expect(AuthenticationToken.tokenCache?.authenticationToken == idToken)
            AuthenticationToken.resetCurrentAuthenticationTokenCache()
            #expect(AuthenticationToken.tokenCache?.authenticationToken == nil)
            AccessToken.refreshCurrentAccessToken(completion: nil)  // fails against the closed port; must not crash
        }
    }

    @Test func everyGraphRequestInitialiser() async {
        let environment = LoginTest.environment()
        environment.setCurrentAccessToken(LoginTest.token(tokenString: "EAA-current"))
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            let p: [String: Any] = ["fields": "id"]
            let requests: [GraphRequest] = [
                GraphRequest(graphPath: "me"),
                GraphRequest(graphPath: "me", useAlternativeDefaultDomainPrefix: true),
                GraphRequest(graphPath: "me", httpMethod: .delete),
                GraphRequest(graphPath: "me", parameters: p),
                GraphRequest(graphPath: "me", parameters: p, useAlternativeDefaultDomainPrefix: true),
                GraphRequest(graphPath: "me", parameters: p, httpMethod: .post),
                GraphRequest(
                    graphPath: "me", parameters: p, httpMethod: .post, useAlternativeDefaultDomainPrefix: true),
                GraphRequest(graphPath: "me", parameters: p, tokenString: "T", version: "v2.0", httpMethod: .get),
                GraphRequest(
                    graphPath: "me", parameters: p, tokenString: "T", version: nil, httpMethod: .get, forAppEvents: true
                ),
                GraphRequest(
                    graphPath: "me", parameters: p, tokenString: "T", version: "v2.0", httpMethod: .get,
                    forAppEvents: true,
                    useAlternativeDefaultDomainPrefix: true),
                GraphRequest(graphPath: "me", parameters: p, flags: .skipClientToken),
                GraphRequest(graphPath: "me", parameters: nil, flags: [], useAlternativeDefaultDomainPrefix: true),
                GraphRequest(graphPath: "me", parameters: p, tokenString: nil, httpMethod: nil, flags: []),
                GraphRequest(
                    graphPath: "me", parameters: p, tokenString: "T", httpMethod: "POST", flags: [],
                    useAlternativeDefaultDomainPrefix: true),
                GraphRequest(
                    graphPath: "me", parameters: p, tokenString: "T", httpMethod: .get, flags: [], forAppEvents: true),
                GraphRequest(
                    graphPath: "me", parameters: p, tokenString: "T", httpMethod: .get, flags: [], forAppEvents: true,
                    useAlternativeDefaultDomainPrefix: true),
            ]
            #expect(
                requests.map(\.tokenString) == [
                    "EAA-current", "EAA-current", "EAA-current", "EAA-current", "EAA-current",
                    "EAA-current", "EAA-current", "T", "T", "T", "EAA-current", "EAA-current",
                    nil, "T", "T", "T",
                ])
            #expect(
                requests.map(\.httpMethod.rawValue) == [
                    "GET", "GET", "DELETE", "GET", "GET", "POST", "POST", "GET", "GET",
                    "GET", "GET", "GET", "GET", "POST", "GET", "GET",
                ])
            #expect(
                requests.map(\.forAppEvents) == [
                    false, false, false, false, false, false, false, false, true, true,
                    false, false, false, false, true, true,
                ])
            #expect(requests[1].useAlternativeDefaultDomainPrefix && !requests[0].useAlternativeDefaultDomainPrefix)
            #expect(requests[7].version == "v2.0" && requests[8].version == environment.settings.graphAPIVersion)
            requests[0].setGraphErrorRecovery(disabled: true)
            #expect(requests[0].flags.contains(.disableErrorRecovery))
            requests[0].setGraphErrorRecoveryDisabled(false)
            #expect(!requests[0].flags.contains(.disableErrorRecovery))
        }
    }

    @Test func graphRequestConnectionMembers() async {
        let environment = LoginTest.environment()
        let connection = GraphRequestConnection(environment: environment)
        let request = GraphRequest(
            graphPath: "me", parameters: [:], tokenString: "T", version: "v27.0", httpMethod: .get)
        connection.add(request) { _, _, _ in }
        connection.add(request, name: "first") { _, _, _ in }
        connection.add(request, parameters: ["depends_on": "first"]) { _, _, _ in }
        connection.overrideGraphAPIVersion("v2.3")
        connection.delegateQueue = OperationQueue()
        connection.timeout = 5
        #expect(connection.addedEntries.map(\.request.version) == ["v2.3", "v2.3", "v2.3"])
        #expect(connection.delegateQueue != nil && connection.timeout == 5 && connection.urlResponse == nil)
        #expect(GraphRequestConnection.defaultConnectionTimeout == 60)
        connection.cancel()
        connection.start()  // after cancel: does nothing
    }

    @Test func loginConfigurationInitialisers() {
        let nonce = "nonce-1"
        let all: [LoginConfiguration?] = [
            LoginConfiguration(permissions: ["email"], tracking: .enabled, nonce: nonce, messengerPageId: "7"),
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, nonce: nonce, messengerPageId: "7", appSwitch: .disabled),
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, nonce: nonce, messengerPageId: "7", authType: .reauthorize),
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, nonce: nonce, messengerPageId: "7", authType: nil,
                appSwitch: .disabled),
            LoginConfiguration(permissions: ["email"], tracking: .enabled, nonce: nonce),
            LoginConfiguration(permissions: ["email"], tracking: .enabled, nonce: nonce, appSwitch: .disabled),
            LoginConfiguration(permissions: ["email"], tracking: .enabled, messengerPageId: "7"),
            LoginConfiguration(permissions: ["email"], tracking: .enabled, messengerPageId: "7", appSwitch: .disabled),
            LoginConfiguration(permissions: ["email"], tracking: .enabled, messengerPageId: "7", authType: nil),
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, messengerPageId: "7", authType: nil, appSwitch: .disabled),
            LoginConfiguration(
                permissions: ["email"], tracking: .enabled, nonce: nonce, messengerPageId: nil, authType: .rerequest,
                appSwitch: .enabled, codeVerifier: CodeVerifier()),
            LoginConfiguration(permissions: ["email"], tracking: .enabled),
            LoginConfiguration(permissions: ["email"], tracking: .limited, appSwitch: .disabled),
            LoginConfiguration(tracking: .limited),
            LoginConfiguration(tracking: .enabled, appSwitch: .disabled),
            LoginConfiguration(
                permissions: [.email], tracking: .enabled, nonce: nonce, messengerPageId: nil, authType: nil,
                appSwitch: .enabled, codeVerifier: CodeVerifier()),
            // seed 003's call
            LoginConfiguration(permissions: [], tracking: .enabled, messengerPageId: nil, authType: nil),
        ]
        let made = all.compactMap { $0 }
        #expect(made.count == all.count)
        #expect(
            made.map { $0.nonce == nonce } == [
                true, true, true, true, true, true, false, false, false, false, true,
                false, false, false, false, true, false,
            ])
        #expect(
            made.map(\.authType) == [
                .rerequest, .rerequest, .reauthorize, nil, .rerequest, .rerequest, .rerequest, .rerequest,
                nil, nil, .rerequest, .rerequest, .rerequest, .rerequest, .rerequest, nil, nil,
            ])
        #expect(made[1].appSwitch == .disabled && made[0].appSwitch == .enabled && made[0].messengerPageId == "7")
        // Facebook's nonce rule
        #expect(LoginConfiguration(permissions: ["email"], tracking: .enabled, nonce: " ") == nil)
    }

    @Test func loginManagerMembers() async throws {
        let environment = LoginTest.environment()
        let manager = LoginManagerTests.manager(LoginManagerTests.granting(), environment: environment)
        manager.defaultAudience = .everyone
        let results = LoginRecorder<String>()
        manager.logIn(permissions: ["email"], from: nil) { result, error in
            results.record(result?.token?.tokenString ?? "\(String(describing: error))")
        }
        await results.waitFor(1)
        manager.logIn(from: nil, configuration: LoginConfiguration(permissions: ["email"], tracking: .enabled)) {
            result, _ in
            results.record(result?.token?.tokenString ?? "nil")
        }
        await results.waitFor(2)
        manager.logIn(
            viewController: nil, configuration: LoginConfiguration(permissions: ["email"], tracking: .enabled)
        ) { result in
            if case .success(_, _, let token) = result {
                results.record(token?.tokenString ?? "nil")
            } else {
                results.record("\(result)")
            }
        }
        await results.waitFor(3)
        manager.logIn(configuration: LoginConfiguration(permissions: ["email"], tracking: .enabled)) { result in
            if case .success(_, _, let token) = result {
                results.record(token?.tokenString ?? "nil")
            } else {
                results.record("\(result)")
            }
        }
        await results.waitFor(4)
        manager.logIn(permissions: [.email], viewController: nil) { result in
            if case .success(_, _, let token) = result {
                results.record(token?.tokenString ?? "nil")
            } else {
                results.record("\(result)")
            }
        }
        await results.waitFor(5)
        manager.reauthorizeDataAccess(from: nil) { result, _ in results.record(result?.token?.tokenString ?? "nil") }
        await results.waitFor(6)
        #expect(results.values == Array(repeating: "EAAfresh", count: 6))

        let callback = URL(string: "fb\(Self.appID)://authorize/#access_token=x")!
        #expect(manager.isAuthenticationURL(callback))
        #expect(!manager.isAuthenticationURL(URL(string: "fb999://authorize/")!))
        #expect(manager.shouldStopPropagation(of: callback))
        #expect(manager.canOpen(callback, for: nil, sourceApplication: nil, annotation: nil))
        #expect(
            !manager.application(
                nil, open: URL(string: "https://example.test/")!, sourceApplication: nil, annotation: nil))
        // Would end any login waiting on `ApplicationDelegate.shared` in a parallel test: named, not called.
        let becameActive: (AnyObject?) -> Void = manager.applicationDidBecomeActive(_:)
        _ = becameActive
        #expect(LoginManager.makeOpener().defaultAudience == .friends)
        manager.logOut()
        #expect(environment.currentAccessToken == nil)
    }

    @Test func profileInitialisersAndStatics() async {
        let environment = LoginTest.environment()
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            let short = Profile(userID: "1")
            let classic = Profile(
                userID: "1", firstName: "A", middleName: nil, lastName: "B", name: "A B", linkURL: nil,
                refreshDate: nil, permissions: ["email"])
            let full = Profile(
                userID: "1", firstName: nil, middleName: nil, lastName: nil, name: nil, linkURL: nil, refreshDate: nil,
                imageURL: nil, email: "a@b.test", friendIDs: ["2"], birthday: nil, ageRange: nil, hometown: nil,
                location: nil, gender: nil, isLimited: true, permissions: ["email"])
            #expect(
                short.refreshDate == LoginTest.now && classic.permissions == ["email"] && full.isLimited
                    && !classic.isLimited)
            Profile.enableUpdatesOnAccessTokenChange(true)
            #expect(Profile.isUpdatedWithAccessTokenChange)
            Profile.isUpdatedWithAccessTokenChange = false
            #expect(short.imageURL(forMode: .square, size: CGSize(width: 10, height: 10)) != nil)
            Profile.current = classic
            #expect(Profile.current == classic)
        }
    }

    @Test func settingsAndApplicationDelegate() {
        let environment = LoginTest.environment()
        let settings = environment.settings
        settings.enableLoggingBehavior(.networkRequests)
        #expect(settings.isLoggingBehaviorEnabled(.networkRequests))
        settings.disableLoggingBehavior(.networkRequests)
        #expect(!settings.isLoggingBehaviorEnabled(.networkRequests))
        settings.setDataProcessingOptions(["LDU"])
        #expect(settings.persistableDataProcessingOptions?["data_processing_options"] as? [String] == ["LDU"])
        settings.setDataProcessingOptions(["LDU"], country: 1, state: 1000)
        #expect(settings.persistableDataProcessingOptions?["data_processing_options_state"] as? Int32 == 1000)
        settings.recordInstall()
        settings.logIfSDKSettingsChanged()
        #expect(settings.defaultGraphAPIVersion == "v27.0" && !settings.sdkVersion.isEmpty)

        final class Observer: FBSDKApplicationObserving, @unchecked Sendable {
            var opened: [URL] = [], activations = 0
            func application(_ application: AnyObject?, open url: URL?, sourceApplication: String?, annotation: Any?)
                -> Bool
            {
                url.map { opened.append($0) }
                return true
            }
            func applicationDidBecomeActive(_ application: AnyObject?) { activations += 1 }
        }
        let delegate = ApplicationDelegate()
        let observer = Observer()
        delegate.addObserver(observer)
        delegate.addObserver(observer)
        let other = URL(string: "myapp://somewhere")!
        #expect(delegate.application(nil, open: other, options: [:]))
        #expect(delegate.application(nil, open: other, sourceApplication: nil, annotation: nil))
        delegate.applicationDidBecomeActive(nil)
        #expect(observer.opened == [other, other] && observer.activations == 1)
        delegate.removeObserver(observer)
        #expect(!delegate.application(nil, open: other, options: [:]))
        // `initializeSDK()` and `application(_:didFinishLaunchingWithOptions:)` set process-wide hooks, so they
        // are called in InitializeSDKTests (serialized with the suites that read those hooks); here they are
        // only named, with Facebook's labels.
        let launch: (AnyObject?, [AnyHashable: Any]?) -> Bool = delegate.application(_:didFinishLaunchingWithOptions:)
        let initialize: ([String: String]) -> Void = delegate.initializeSDK(processEnvironment:)
        _ = (launch, initialize)
    }
}
