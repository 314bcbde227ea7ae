import GatehouseCore
import Foundation
import Logging

/// "Delete my account" (issue 32): every app the person used is told, then the person is gone.
///
/// Each app gets its data-deletion callback (when it has a URL; through the outbox, whose rows outlive the account
/// on purpose) and its deauthorize callback (``AppRemoval``, which also revokes the app's tokens). Then the person
/// is deleted: their grants, tokens, codes, sessions and second factor go with them (foreign keys cascade).
struct AccountDeletion: Sendable {
    let services: GatehouseServices

    /// Returns the names of the apps that were told.
    @discardableResult
    func delete(_ user: UserRecord) async throws -> [String] {
        let storage = services.storage
        var told: [String] = []
        for grant in try await storage.grants.grants(userID: user.id) {
            guard let app = try await storage.apps.find(id: grant.appID) else { continue }
            let scoped = try await storage.users.scopedID(appID: app.id, userID: user.id)
            _ = try await services.outbox.enqueue(.dataDeletion, app: app, userID: user.id, scopedUserID: scoped, at: services.clock.now())
            try await AppRemoval(services: services).remove(appID: app.id, userID: user.id, scopedID: scoped)
            told.append(app.name)
        }
        try await storage.tokens.revokeAll(userID: user.id, at: services.clock.now())
        try await storage.sessions.deleteAll(userID: user.id)
        try await storage.twoFactor?.delete(userID: user.id)
        try await storage.users.delete(id: user.id)
        services.logger.info("account deleted", metadata: ["user": "\(user.id)", "apps": "\(told.count)"])
        return told
    }
}
