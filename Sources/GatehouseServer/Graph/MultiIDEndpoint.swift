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
        let ids = try Self.distinctIDs(raw)
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

    /// The distinct ids in asking order. Reading stops at the first id past the limit, so a 1 MiB list (about
    /// 170,000 ids) costs no more than 51 of them: the client controls the list, and a duplicate check by
    /// `Array.contains` over all of it was quadratic (issue 27, finding 2).
    static func distinctIDs(_ raw: String) throws(GraphFailure) -> [String] {
        var ids: [String] = []
        var seen = Set<String>()
        var rest = Substring(raw)
        while !rest.isEmpty {
            let end = rest.firstIndex(of: ",") ?? rest.endIndex
            let id = rest[..<end].trimmingCharacters(in: .whitespaces)
            rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            guard !id.isEmpty, seen.insert(id).inserted else { continue }
            guard ids.count < maximumIDs else {
                // Facebook states the count it was given; past the limit only "more than 50" is known.
                throw GraphFailure(
                    .invalidParameter("Too many IDs. Maximum: \(maximumIDs). Provided: more than \(maximumIDs)."))
            }
            ids.append(id)
        }
        guard !ids.isEmpty else { throw GraphFailure(.invalidParameter("The parameter ids is required")) }
        return ids
    }
}
