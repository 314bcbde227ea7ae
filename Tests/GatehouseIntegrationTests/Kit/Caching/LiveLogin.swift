import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport

extension SessionKitFixtures {
    /// Logs `user` into the live server's demo app through the real dialog (token response type) and
    /// builds the `AccessToken` the SDK would: user id from `me?fields=id`, permissions from `me/permissions`.
    static func liveToken(
        _ server: LiveServer, user: LiveServer.SeedUser, scope: [String], environment: GatehouseKitEnvironment
    ) async throws -> AccessToken {
        let redirect = "fb\(server.appID)://authorize/"
        let query = FormEncoding.encode([
            ("client_id", server.appID), ("redirect_uri", redirect), ("response_type", "token"),
            ("scope", scope.joined(separator: ",")), ("state", "x"),
        ])
        let dialog = URL(string: "\(server.baseURL.absoluteString)/v27.0/dialog/oauth?\(query)")!
        let callbackURL = try await DialogPlayer().complete(dialog, email: user.email, password: user.password)
        guard let callback = LoginCallback(url: callbackURL), callback.outcome == .success, callback.state == "x",
            let tokenString = callback.accessToken
        else { throw LiveLoginError.noToken }
        let transport = GraphTransport(environment: environment)
        let me = try await transport.send(
            method: "GET", path: "me", parameters: ["fields": "id"], tokenString: tokenString)
        guard let userID = me.json?["id"]?.stringValue else { throw LiveLoginError.noUserID }
        let granted = try await transport.send(
            method: "GET", path: "me/permissions", parameters: [:], tokenString: tokenString)
        let entries = granted.json?["data"]?.arrayValue ?? []
        func names(_ status: String) -> [String] {
            entries.filter { $0["status"]?.stringValue == status }.compactMap { $0["permission"]?.stringValue }
        }
        let now = environment.clock.now()
        return AccessToken(
            tokenString: tokenString, permissions: names("granted"), declinedPermissions: names("declined"),
            expiredPermissions: names("expired"), appID: server.appID, userID: userID,
            expirationDate: callback.expiresIn.map { now.addingTimeInterval($0) }, refreshDate: now,
            dataAccessExpirationDate: callback.dataAccessExpirationTime)
    }

    enum LiveLoginError: Error { case noToken, noUserID }
}
