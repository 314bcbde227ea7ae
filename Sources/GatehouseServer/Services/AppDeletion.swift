import Foundation
import GatehouseCore

/// Deleting an app (`DELETE /admin/api/v1/apps/{id}`, `gatehouse apps delete`). Its rows go by cascade
/// (``Storage/deleteApp(id:)``), but a cascade announces nothing, so what it would end silently is ended first:
/// the test users the app holds are deleted as people are (``AccountDeletion/erase(_:)``: each live token a
/// `token.revoked` with `scope: person`, then `account.deleted` with `details.by` `app_deleted`), and every other
/// live token of the app is revoked (`app_and_person` for a person's, `token` for an app token).
package struct AppDeletion: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// False when there is no such app.
    package func delete(appID: String) async throws -> Bool {
        let storage = services.storage
        guard try await storage.apps.find(id: appID) != nil else { return false }
        let deletion = AccountDeletion(services: services)
        for user in try await storage.users.testUsers(appID: appID) where user.testUserOfAppID == appID {
            try await deletion.erase(user)
            await services.events.record(
                .accountDeleted, appID: appID, personID: user.id, ["apps_told": "0", "by": "app_deleted"])
        }
        let now = services.clock.now()
        let live = try await storage.tokens.live(appID: appID, userID: nil, now: now)
        for userID in Set(live.compactMap(\.userID)).sorted() {
            try await storage.tokens.revokeAll(appID: appID, userID: userID, at: now)
        }
        for token in live where token.userID == nil { try await storage.tokens.revoke(id: token.id, at: now) }
        return try await storage.deleteApp(id: appID)
    }
}
