import GatehouseCore
import SQLKit

/// Migration 20 (issue 41): test users held by more than one app, and friend requests between test users.
///
/// - `test_user_apps`: the apps a test user was associated with besides the one that holds it
///   (`users.test_user_of_app_id`, which stays the app that may delete it), as `POST /{app}/accounts/test-users`
///   with `uid` and `owner_access_token` adds them.
/// - `friend_requests`: a request one test user sent another with their own token; the other's request back
///   makes the friendship (`friendships`) and removes it.
package enum Migration20TestUserApps {
    package static let migration = SQLMigration(version: 20, name: "test user apps and friend requests") { db in
        let cascadeApp = SQLColumnConstraintAlgorithm.references("apps", "id", onDelete: .cascade)
        let cascadeUser = SQLColumnConstraintAlgorithm.references("users", "id", onDelete: .cascade)
        try await db.create(table: "test_user_apps").ifNotExists()
            .column("app_id", type: .text, .notNull, cascadeApp)
            .column("user_id", type: .text, .notNull, cascadeUser)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("app_id", "user_id")
            .run()
        try await SQLSchemaTypes.createIndex(db, "test_user_apps_user_idx", on: "test_user_apps", ["user_id"])

        try await db.create(table: "friend_requests").ifNotExists()
            .column("from_user", type: .text, .notNull, cascadeUser)
            .column("to_user", type: .text, .notNull, cascadeUser)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("from_user", "to_user")
            .run()
        try await SQLSchemaTypes.createIndex(db, "friend_requests_to_idx", on: "friend_requests", ["to_user"])
    }
}
