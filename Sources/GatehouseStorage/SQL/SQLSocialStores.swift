import GatehouseCore
import Foundation
import GatehouseProtocol
import SQLKit

/// `PostStore` over any `SQLDatabase`: table `posts` (unique `id`, newest = highest `seq`).
package struct SQLPostStore: PostStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    package static let columns = [
        "id", "app_id", "author_id", "message", "link", "name", "caption", "description", "picture", "audience",
        "created_at",
    ]

    package func insert(_ post: PostRecord) async throws {
        try await context.run(uniqueConflict: { _ in "post id" }) {
            try await db.insert(into: "posts").columns(Self.columns).values(Self.values(post)).run()
        }
    }

    package static func values(_ post: PostRecord) -> [any Encodable & Sendable] {
        [
            post.id, post.appID, post.authorID, post.message, post.link, post.name, post.caption, post.description,
            post.picture, post.audience.rawValue, SQLCodec.seconds(post.createdAt),
        ]
    }

    package func find(id: String) async throws -> PostRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("posts").where("id", .equal, id).first().map(Self.decode)
        }
    }

    package func posts(authorID: String, limit: Int, offset: Int) async throws -> [PostRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("posts").where("author_id", .equal, authorID)
                .orderBy("seq", .descending).limit(limit).offset(offset)
                .all().map(Self.decode)
        }
    }

    package func posts(appID: String, limit: Int) async throws -> [PostRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("posts").where("app_id", .equal, appID)
                .orderBy("seq", .descending).limit(limit)
                .all().map(Self.decode)
        }
    }

    package func delete(id: String) async throws {
        try await context.run { try await db.delete(from: "posts").where("id", .equal, id).run() }
    }

    package static func decode(_ row: any SQLRow) throws -> PostRecord {
        let r = RowReader(row)
        let audienceName = try r.string("audience")
        return PostRecord(
            id: try r.string("id"), appID: try r.string("app_id"), authorID: try r.string("author_id"),
            message: try r.optionalString("message"), link: try r.optionalString("link"),
            name: try r.optionalString("name"),
            caption: try r.optionalString("caption"), description: try r.optionalString("description"),
            picture: try r.optionalString("picture"),
            // An unknown stored audience reads as the narrowest one, never as more public.
            audience: Audience(wireName: audienceName) ?? .onlyMe, createdAt: try r.date("created_at"))
    }
}

/// `AppRequestStore` over any `SQLDatabase`: table `app_requests`, one row per (request id, recipient).
package struct SQLAppRequestStore: AppRequestStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    package static let columns = [
        "request_id", "app_id", "sender_id", "recipient_id", "message", "data", "title", "created_at",
        "notification_text", "accepted_at",
    ]

    package func insert(_ requests: [AppRequestRecord]) async throws {
        guard !requests.isEmpty else { return }
        try await context.run(uniqueConflict: { _ in "request recipient" }) {
            var insert = db.insert(into: "app_requests").columns(Self.columns)
            for r in requests { insert = insert.values(Self.values(r)) }
            try await insert.run()
        }
    }

    package static func values(_ r: AppRequestRecord) -> [any Encodable & Sendable] {
        [
            r.requestID, r.appID, r.senderID, r.recipientID, r.message, r.data, r.title, SQLCodec.seconds(r.createdAt),
            r.notificationText, SQLCodec.seconds(r.acceptedAt),
        ]
    }

    package func find(requestID: String, recipientID: String) async throws -> AppRequestRecord? {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_requests")
                .where("request_id", .equal, requestID).where("recipient_id", .equal, recipientID)
                .first().map(Self.decode)
        }
    }

    package func recipients(requestID: String) async throws -> [AppRequestRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_requests").where("request_id", .equal, requestID)
                .orderBy("seq").all().map(Self.decode)
        }
    }

    package func requests(appID: String, recipientID: String) async throws -> [AppRequestRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_requests")
                .where("app_id", .equal, appID).where("recipient_id", .equal, recipientID)
                .orderBy("seq", .descending).all().map(Self.decode)
        }
    }

    package func requests(appID: String, limit: Int) async throws -> [AppRequestRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("app_requests").where("app_id", .equal, appID)
                .orderBy("seq", .descending).limit(limit).all().map(Self.decode)
        }
    }

    package func delete(requestID: String, recipientID: String) async throws {
        try await context.run {
            try await db.delete(from: "app_requests")
                .where("request_id", .equal, requestID).where("recipient_id", .equal, recipientID)
                .run()
        }
    }

    package func accept(requestID: String, recipientID: String, at date: Date) async throws -> Bool {
        try await context.run {
            try await db.update("app_requests").set("accepted_at", to: SQLCodec.seconds(date))
                .where("request_id", .equal, requestID).where("recipient_id", .equal, recipientID)
                .run()
            return try await db.select().column("seq").from("app_requests")
                .where("request_id", .equal, requestID).where("recipient_id", .equal, recipientID)
                .first() != nil
        }
    }

    package static func decode(_ row: any SQLRow) throws -> AppRequestRecord {
        let r = RowReader(row)
        return AppRequestRecord(
            requestID: try r.string("request_id"), appID: try r.string("app_id"), senderID: try r.string("sender_id"),
            recipientID: try r.string("recipient_id"), message: try r.string("message"),
            data: try r.optionalString("data"),
            title: try r.optionalString("title"), createdAt: try r.date("created_at"),
            notificationText: try r.optionalString("notification_text"), acceptedAt: try r.optionalDate("accepted_at"))
    }
}
