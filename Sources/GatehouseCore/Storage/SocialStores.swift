import Foundation
import GatehouseProtocol

/// A post an app published on a person's timeline (`POST /me/feed` or the feed dialog).
package struct PostRecord: Sendable, Codable, Equatable {
    /// The numeric post id. Graph shows it as `{author's app-scoped id}_{id}`, like Facebook's post ids.
    package var id: String
    /// The app that published it; only that app may delete it.
    package var appID: String
    /// The global id of the person who posted (whose timeline it is on).
    package var authorID: String
    package var message: String?
    package var link: String?
    package var name: String?
    package var caption: String?
    package var description: String?
    package var picture: String?
    /// Who may read it: the grant's default audience, or a narrower `privacy` the app asked for.
    package var audience: Audience
    package var createdAt: Date

    package init(
        id: String, appID: String, authorID: String, message: String? = nil, link: String? = nil, name: String? = nil,
        caption: String? = nil, description: String? = nil, picture: String? = nil, audience: Audience, createdAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.authorID = authorID
        self.message = message
        self.link = link
        self.name = name
        self.caption = caption
        self.description = description
        self.picture = picture
        self.audience = audience
        self.createdAt = createdAt
    }
}

/// One recipient's copy of an app request sent with the requests dialog.
///
/// A dialog sends one request id to several people; each (request id, recipient) pair is a row, shown in
/// Graph as `{request id}_{recipient's app-scoped id}`, and deleting it removes only that person's copy.
package struct AppRequestRecord: Sendable, Codable, Equatable {
    package var requestID: String
    package var appID: String
    /// Global user ids.
    package var senderID: String
    package var recipientID: String
    package var message: String
    /// The app's own `data`, returned as given (Facebook allows up to 255 characters).
    package var data: String?
    package var title: String?
    package var createdAt: Date
    /// The requests dialog's `notification_text` (seed 002's "Check this out"): what the recipient's notification
    /// says. Nil when the app sent none.
    package var notificationText: String?
    /// When the recipient accepted the request from their notifications; nil while it waits. Accepting does not
    /// delete it: as on Facebook, the app deletes a request once it has acted on it.
    package var acceptedAt: Date?

    package init(
        requestID: String, appID: String, senderID: String, recipientID: String, message: String, data: String? = nil,
        title: String? = nil, createdAt: Date, notificationText: String? = nil, acceptedAt: Date? = nil
    ) {
        self.notificationText = notificationText
        self.acceptedAt = acceptedAt
        self.requestID = requestID
        self.appID = appID
        self.senderID = senderID
        self.recipientID = recipientID
        self.message = message
        self.data = data
        self.title = title
        self.createdAt = createdAt
    }
}

/// Posts on people's timelines.
package protocol PostStore: Sendable {
    /// Throws `.notFound` when the app or author does not exist, `.conflict` for a duplicate id.
    func insert(_ post: PostRecord) async throws
    func find(id: String) async throws -> PostRecord?
    /// One person's posts, newest first.
    func posts(authorID: String, limit: Int, offset: Int) async throws -> [PostRecord]
    /// Everything an app published, newest first (console and admin).
    func posts(appID: String, limit: Int) async throws -> [PostRecord]
    func delete(id: String) async throws
}

/// App requests waiting for their recipients.
package protocol AppRequestStore: Sendable {
    /// Inserts one request's rows (one per recipient) together.
    func insert(_ requests: [AppRequestRecord]) async throws
    func find(requestID: String, recipientID: String) async throws -> AppRequestRecord?
    /// Every recipient's copy of one request, in insertion order.
    func recipients(requestID: String) async throws -> [AppRequestRecord]
    /// One person's requests from one app, newest first.
    func requests(appID: String, recipientID: String) async throws -> [AppRequestRecord]
    /// Everything sent through an app, newest first (console and admin).
    func requests(appID: String, limit: Int) async throws -> [AppRequestRecord]
    func delete(requestID: String, recipientID: String) async throws
    /// Marks one recipient's copy accepted at `date`; false when there is no such copy.
    func accept(requestID: String, recipientID: String, at date: Date) async throws -> Bool
}
