import Foundation
import GatehouseKit
import Testing

extension GraphSerialTests {
    /// Shares the process-wide recovery hook with the Graph suites, so it runs serialized with them.
    @Suite struct InitializeSDKTests {
        @Test func initializeSDKWiresRecoveryAndSessionProviders() async throws {
            let savedAttempter = ErrorRecovery.loginAttempter
            let savedLogin = Session.defaultLoginProvider, savedRefresher = Session.defaultTokenRefresher
            defer {
                ErrorRecovery.loginAttempter = savedAttempter
                Session.defaultLoginProvider = savedLogin
                Session.defaultTokenRefresher = savedRefresher
            }
            ErrorRecovery.loginAttempter = nil
            Session.defaultLoginProvider = nil
            Session.defaultTokenRefresher = nil
            // An environment with its own cache, so no default cache is written under the real $HOME.
            GatehouseKitEnvironment.$taskOverride.withValue(
                GatehouseKitEnvironment(tokenCache: InMemoryTokenCache())
            ) {
                ApplicationDelegate.shared.initializeSDK(processEnvironment: [:])
                #expect(ErrorRecovery.loginAttempter is LoginRecoveryAttempter)
            }
            // The attempter went to the environment initialised, not the installed one.
            #expect(ErrorRecovery.loginAttempter == nil)
            #expect(Session.defaultLoginProvider is LoginManager)
            #expect(Session.defaultTokenRefresher is CurrentTokenRefresher)

            let environment = GatehouseKitEnvironment()
            let stale = AccessToken(
                tokenString: "EAA-stale", permissions: [], declinedPermissions: [], expiredPermissions: [],
                appID: "1", userID: "2", expirationDate: nil, refreshDate: nil, dataAccessExpirationDate: nil)
            await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
                await #expect(throws: CoreError(.accessTokenRequired, message: "the token is no longer current")) {
                    try await CurrentTokenRefresher().refresh(stale)
                }
            }
        }

        @Test func didFinishLaunchingInitializesAndKeepsTheAppsCache() async {
            let savedAttempter = ErrorRecovery.loginAttempter
            let savedLogin = Session.defaultLoginProvider, savedRefresher = Session.defaultTokenRefresher
            defer {
                ErrorRecovery.loginAttempter = savedAttempter
                Session.defaultLoginProvider = savedLogin
                Session.defaultTokenRefresher = savedRefresher
            }
            let cache = InMemoryTokenCache()
            let environment = GatehouseKitEnvironment(tokenCache: cache)
            Session.defaultLoginProvider = nil
            #if !canImport(UIKit)
            GatehouseKitEnvironment.$taskOverride.withValue(environment) {
                #expect(ApplicationDelegate().application(nil, didFinishLaunchingWithOptions: nil))
            }
            #expect(environment.tokenCache === cache)
            #expect(Session.defaultLoginProvider is LoginManager)
            #endif
        }
    }
}
