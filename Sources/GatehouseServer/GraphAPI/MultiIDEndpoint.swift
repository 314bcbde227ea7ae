import GatehouseCore
import Foundation
import GatehouseProtocol

/// `GET /?ids=a,b&fields=…` (and `/{version}/?ids=…`): several objects in one call, answered as one JSON
/// object keyed by each requested id, in the order asked (python-facebook-api's `get_objects` uses it).
///
/// Each id runs through the dispatcher as `GET /{id}` with the same parameters, so fields, permissions
/// and visibility follow the single-object rules exactly. Ids that do not exist, or that the caller may
/// not see (the single-object reply is subcode 33), fail the whole call with Facebook's (#803); any other
/// error of one id is the call's error, as Facebook returns it.
struct MultiIDEndpoint: Sendable {
    let dispatcher: GraphDispatcher
    /// Facebook's limit on ids per request.
    static let maximumIDs = 50

    func handle(_ call: GraphCall, ids raw: String) async throws -> GraphReply {
        var ids: [String] = []
        for id in raw.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !id.isEmpty && !ids.contains(id) {
            ids.append(id)
        }
        guard !ids.isEmpty else { throw GraphFailure(.invalidParameter("The parameter ids is required")) }
        guard ids.count <= Self.maximumIDs else {
            throw GraphFailure(.invalidParameter("Too many IDs. Maximum: \(Self.maximumIDs). Provided: \(ids.count)."))
        }
        var result = JSONObject([])
        var missing: [String] = []
        for id in ids {
            var single = call
            single.path = [id]
            single.params.removeValue(forKey: "ids")
            let reply = await dispatcher.dispatch(single)
            guard case .json(let body) = reply.body else { throw GraphFailure(.unknownError) }
            if reply.status < 400 {
                result[id] = body
            } else if reply.graphError?.errorSubcode == 33 {
                missing.append(id)
            } else {
                return reply
            }
        }
        guard missing.isEmpty else { throw GraphFailure(.aliasesDoNotExist(missing)) }
        return .json(.object(result))
    }
}
