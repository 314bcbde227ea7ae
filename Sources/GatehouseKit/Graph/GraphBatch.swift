import Foundation
import GatehouseProtocol

/// What one request ended with: a JSON result, an error, or neither (a batch entry the server
/// omitted, e.g. one other entries `depends_on`).
struct GraphOutcome: Sendable {
    var result: JSONValue?
    var error: (any Error)?

    static func failure(_ error: any Error) -> GraphOutcome { GraphOutcome(result: nil, error: error) }
}

/// Building Facebook's batch body and splitting its reply. No I/O.
enum GraphBatch {
    /// One request as it goes into the batch, its token already chosen.
    struct Entry: Sendable, Equatable {
        var method: HTTPMethod
        var path: String
        var parameters: [String: String]
        var token: String?
        var version: String
        /// Entry keys such as `name`, `depends_on`, `omit_response_on_success`.
        var batchParameters: JSONObject
    }

    /// The form parameters of the batch POST (`batch`, `batch_app_id`, `access_token`).
    struct Body: Sendable, Equatable {
        var entries: [JSONValue]
        var accessToken: String?
        var appID: String?

        var formParameters: [String: String] {
            var form = ["batch": JSONValue.array(entries).serialized()]
            if let appID, !appID.isEmpty { form["batch_app_id"] = appID }
            if let accessToken { form["access_token"] = accessToken }
            return form
        }
    }

    /// Facebook's rule: the batch token is the first token that is not a client token; an entry whose
    /// token differs from the batch token known when it is added carries its own `access_token`.
    static func body(
        for entries: [Entry], batchVersion: String, appID: String?,
        isClientToken: (String) -> Bool
    ) -> Body {
        var batchToken: String?
        var items: [JSONValue] = []
        for entry in entries {
            if batchToken == nil, let token = entry.token, !isClientToken(token) { batchToken = token }
            let ownToken = entry.token != nil && entry.token != batchToken ? entry.token : nil
            var item: JSONObject = [
                "method": .string(entry.method.rawValue),
                "relative_url": .string(relativeURL(for: entry, batchVersion: batchVersion, token: ownToken)),
            ]
            for (key, value) in entry.batchParameters.pairs { item[key] = value }
            items.append(.object(item))
        }
        return Body(entries: items, accessToken: batchToken, appID: appID)
    }

    /// `path?query` with the fixed parameters (and the entry's own token when it needs one); a
    /// version prefix only when the entry's version differs from the batch's.
    static func relativeURL(for entry: Entry, batchVersion: String, token: String?) -> String {
        var parameters = entry.parameters.merging(GraphParameterEncoding.fixedParameters) { _, fixed in fixed }
        parameters["access_token"] = token
        let query = FormEncoding.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let path =
            entry.version == batchVersion || entry.version.isEmpty ? entry.path : entry.version + "/" + entry.path
        return path + "?" + query
    }

    /// Splits a batch reply into one outcome per entry, in order.
    ///
    /// An array must have exactly one item per entry (`null` for omitted ones); a top-level Graph error
    /// applies to every entry; anything else is `CoreError(.protocolMismatch)`.
    static func split(statusCode: Int, json: JSONValue?, count: Int) -> [GraphOutcome] {
        if case .array(let items)? = json {
            guard items.count == count else {
                return Array(
                    repeating: .failure(
                        CoreError(
                            .protocolMismatch,
                            message:
                                "Unexpected number of results returned from server: \(items.count) for \(count) requests"
                        )), count: count)
            }
            return items.map { item in
                guard case .object = item else { return GraphOutcome(result: nil, error: nil) }
                let code = item["code"]?.intValue.map(Int.init) ?? statusCode
                switch item["body"] {
                case .string(let text)?: return GraphReply.outcome(statusCode: code, data: Data(text.utf8))
                case let body?: return GraphReply.outcome(statusCode: code, json: body)
                case nil: return GraphOutcome(result: nil, error: nil)
                }
            }
        }
        if let json, let error = GraphAPIError(body: json, httpStatusCode: statusCode) {
            return Array(repeating: .failure(error), count: count)
        }
        return Array(
            repeating: .failure(CoreError(.protocolMismatch, message: "The batch reply is not an array")), count: count)
    }
}

/// Reading one Graph reply body. No I/O.
enum GraphReply {
    /// The key Facebook wraps non-JSON bodies in.
    static let nonJSONResultKey = "FACEBOOK_NON_JSON_RESULT"

    /// JSON → result or `GraphAPIError`; other UTF-8 text → `{"FACEBOOK_NON_JSON_RESULT": text}`;
    /// other bytes → `CoreError(.unknown)`.
    static func outcome(statusCode: Int, data: Data) -> GraphOutcome {
        if let json = try? JSONValue.parse(data) { return outcome(statusCode: statusCode, json: json) }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(CoreError(.unknown, message: "The server returned an unexpected response."))
        }
        return GraphOutcome(result: .object([nonJSONResultKey: .string(text)]), error: nil)
    }

    static func outcome(statusCode: Int, json: JSONValue) -> GraphOutcome {
        if let error = GraphAPIError(body: json, httpStatusCode: statusCode) { return .failure(error) }
        return GraphOutcome(result: json, error: nil)
    }
}
