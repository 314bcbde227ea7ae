import Foundation
@testable import GatehouseKit
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
            ApplicationDelegate.shared.initializeSDK()
            #expect(ErrorRecovery.loginAttempter is LoginRecoveryAttempter)
            #expect(Session.defaultLoginProvider is LoginManager)
            #expect(Session.defaultTokenRefresher is CurrentTokenRefresher)

            let environment = GatehouseKitEnvironment()
            let stale = AccessToken(tokenString: "EAA-stale", permissions: [], declinedPermissions: [], expiredPermissions: [],
                                    appID: "1", userID: "2", expirationDate: nil, refreshDate: nil, dataAccessExpirationDate: nil)
            await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
                await #expect(throws: CoreError(.accessTokenRequired, message: "the token is no longer current")) {
                    try await CurrentTokenRefresher().refresh(stale)
                }
            }
        }
    }
}
