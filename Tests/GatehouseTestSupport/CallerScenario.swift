import Foundation
import GatehouseCore
import GatehouseProtocol

/// One person with a token for one app, made fresh (unique ids) for each write kind under test.
package struct CallerScenario {
    package let app: AppRecord
    package let user: UserRecord
    package let token: TokenRecord
    package let text: String
    package var codeID: String { token.codeID ?? "" }
    package var appToken: String { "\(app.id)|\(app.secret)" }

    /// Creates the app, person, grant (email granted), app-scoped id and a token (from code `c<n>`) through `storage`.
    package static func make(_ n: Int, on storage: Storage, now: Date) async throws -> CallerScenario {
        let app = Fixture.app("9000\(n)", createdAt: now)
        let user = Fixture.user("u\(n)", createdAt: now)
        let text = "EAAGcallerscenario\(n)x\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        var token = Fixture.token(
            "t\(n)", app: app.id, user: user.id, issuedAt: now, expiresAt: now.addingTimeInterval(3600), codeID: "c\(n)"
        )
        token.tokenHash = SecretHash.sha256Hex(text)
        try await storage.apps.create(app)
        try await storage.users.create(user)
        try await storage.grants.save(
            GrantRecord(
                appID: app.id, userID: user.id, granted: [Permission.publicProfile, "email"], declined: [],
                createdAt: now, updatedAt: now, lastLoginAt: now))
        _ = try await storage.users.scopedID(appID: app.id, userID: user.id)
        try await storage.tokens.insert(token)
        return CallerScenario(app: app, user: user, token: token, text: text)
    }
}
