import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol
import GatehouseServer

extension AppsCommand {
    /// `gatehouse apps activity APP_ID`: the posts an app published and the requests sent through it, newest first.
    struct Activity: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's recent posts and app requests (global user ids).")
        @Argument(help: "The app id.") var id: String
        @Option(help: "How many of each to show (default 20).") var limit: Int = 20
        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            let activity = try await withServices(data) { s -> ActivityJSON in
                guard try await s.storage.apps.find(id: id) != nil else { throw CLIError("no app with id \(id)") }
                let count = min(max(limit, 1), 500)
                var names: [String: String] = [:]
                func name(_ userID: String) async throws -> String {
                    if let known = names[userID] { return known }
                    let found = try await s.storage.users.find(id: userID)?.fullName ?? userID
                    names[userID] = found
                    return found
                }
                var posts: [ActivityJSON.Post] = []
                for p in try await s.storage.posts.posts(appID: id, limit: count) {
                    posts.append(
                        .init(
                            id: p.id, author_id: p.authorID, author: try await name(p.authorID),
                            audience: p.audience.wireName,
                            message: p.message, link: p.link, created_at: p.createdAt))
                }
                var requests: [ActivityJSON.Request] = []
                for r in try await s.storage.requests.requests(appID: id, limit: count) {
                    requests.append(
                        .init(
                            request_id: r.requestID, sender_id: r.senderID, sender: try await name(r.senderID),
                            recipient_id: r.recipientID,
                            recipient: try await name(r.recipientID), message: r.message, data: r.data,
                            created_at: r.createdAt))
                }
                return ActivityJSON(posts: posts, requests: requests)
            }
            if json { try printJSON(activity); return }
            print(activity.posts.isEmpty ? "No posts." : "Posts, newest first:")
            for p in activity.posts {
                print(
                    "  \(p.id)  \(p.author) (\(p.author_id))  \(p.audience)  \(p.message.map { "\"\($0)\"" } ?? "")\(p.link.map { " \($0)" } ?? "")"
                )
            }
            print(activity.requests.isEmpty ? "No app requests." : "App requests, newest first:")
            for r in activity.requests {
                print(
                    "  \(r.request_id)  \(r.sender) → \(r.recipient)  \"\(r.message)\"\(r.data.map { "  data: \($0)" } ?? "")"
                )
            }
        }
    }
}

struct ActivityJSON: Encodable {
    struct Post: Encodable {
        var id, author_id, author, audience: String
        var message, link: String?
        var created_at: Date
    }
    struct Request: Encodable {
        var request_id, sender_id, sender, recipient_id, recipient, message: String
        var data: String?
        var created_at: Date
    }
    var posts: [Post]
    var requests: [Request]
}
