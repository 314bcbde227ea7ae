import GatehouseCore
import Foundation
import SQLKit

extension SQLAppStore: AppDeleting {
    /// One statement: every table that names the app references it with `ON DELETE CASCADE` (foreign keys are on
    /// for SQLite and always on for PostgreSQL), test users included, and their rows cascade in turn.
    package func delete(appID: String) async throws -> Bool {
        try await context.run {
            let deleted = try await context.db.delete(from: "apps").where("id", .equal, appID).returning("id").all()
            return !deleted.isEmpty
        }
    }
}
