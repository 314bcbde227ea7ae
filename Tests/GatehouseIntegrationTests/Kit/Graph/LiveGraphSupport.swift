import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// The live counterpart of GatehouseKitTests' `GraphSerialTests`: suites that replace process-wide SDK state
/// against a real server, one test at a time, and never beside a fast one (`.kitGlobals`).
@Suite(.serialized, .kitGlobals, .tags(.process)) struct LiveGraphSerialTests {}

extension GraphTestSupport {
    /// Installs an environment pointing at `server`'s demo app and returns it.
    @discardableResult
    static func install(_ server: LiveServer, clock: any SDKClock = SystemSDKClock()) -> GatehouseKitEnvironment {
        let environment = GatehouseKitEnvironment(settings: server.settings(), clock: clock)
        GatehouseKitEnvironment.current = environment
        ErrorRecovery.loginAttempter = nil
        return environment
    }

    /// Logs `server.users[user]` in through the real dialog (`response_type=token`, redirect to the app
    /// scheme) and builds the `AccessToken` the SDK would.
    static func logIn(
        _ server: LiveServer, user: Int = 0, scope: String = "email,user_friends",
        extra: [(String, String)] = [], choice: DialogPlayer.Choice = .init()
    ) async throws -> AccessToken {
        let query = FormEncoding.encode(
            [
                ("client_id", server.appID), ("redirect_uri", "fb\(server.appID)://authorize/"),
                ("response_type", "token"),
                ("scope", scope), ("state", "x"), ("return_scopes", "true"),
            ] + extra)
        let url = URL(string: server.baseURL.absoluteString + "/v27.0/dialog/oauth?" + query)!
        let person = server.users[user]
        let redirect = try await DialogPlayer().complete(
            url, email: person.email, password: person.password, choice: choice)
        let callback = try #require(LoginCallback(url: redirect))
        let tokenString = try #require(callback.accessToken)
        let now = GatehouseKitEnvironment.current.clock.now()
        // The dialog's redirect has no user id; the app-scoped id comes from `me`.
        let me = try await GraphRequest(
            graphPath: "me", parameters: ["fields": "id"], tokenString: tokenString, version: nil,
            httpMethod: .get
        ).startJSON()
        let userID = try #require(me["id"]?.stringValue)
        return AccessToken(
            tokenString: tokenString, permissions: callback.grantedScopes ?? [],
            declinedPermissions: callback.deniedScopes ?? [],
            expiredPermissions: [], appID: server.appID, userID: userID,
            expirationDate: callback.expiresAt ?? callback.expiresIn.map { now.addingTimeInterval($0) },
            refreshDate: now, dataAccessExpirationDate: callback.dataAccessExpirationTime)
    }
}
