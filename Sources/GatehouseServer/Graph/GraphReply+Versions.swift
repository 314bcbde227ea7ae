import Foundation
import GatehouseProtocol

extension GraphReply {
    /// `reply` as Facebook answered it at `version`. Before v2.1 a call that succeeded without data (removing
    /// a permission or the app, deleting a request or a post, befriending test users) answered a bare `true`,
    /// which the seeds' revoke sample checks (`result == true`); from v2.1 on it is `{"success":true}`
    /// (``GraphAPIVersion/successObjectSince``). Endpoints always build the modern shape; only this turns it back.
    static func answered(_ reply: GraphReply, at version: String) -> GraphReply {
        // Cheapest tests first, and the error (a large optional) last: every `/me` passes here, and almost none
        // is `{"success":true}` (the check used to copy the reply to compare whole bodies).
        guard reply.status == 200, case .json(.object(let object)) = reply.body, object.count == 1,
            object["success"] == .bool(true), reply.graphError == nil,
            !GraphAPIVersion.isAtLeast(version, GraphAPIVersion.successObjectSince)
        else { return reply }
        var bare = reply
        bare.body = .json(.bool(true))
        return bare
    }

    /// The JSON body, if the reply has one.
    var jsonBody: JSONValue? {
        if case .json(let value) = body { return value }
        return nil
    }
}
