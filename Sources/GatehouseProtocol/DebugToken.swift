import Foundation

/// `GET /debug_token`: `{"data":{…}}`. Invalid tokens still get HTTP 200 with `is_valid: false`.
package struct DebugTokenResponse: Sendable, Equatable, Codable {
    /// The token description.
    package var data: DebugTokenData

    /// Wraps a description.
    package init(data: DebugTokenData) {
        self.data = data
    }
}

/// What `debug_token` knows about a token.
///
/// `app_id` and `user_id` are strings because clients compare them with the `client_id` string;
/// decoding also accepts numbers since Facebook's documentation sample shows one.
package struct DebugTokenData: Sendable, Equatable, Codable {
    /// The app the token belongs to.
    package var appID: String?
    /// `USER`, `APP` or `PAGE`.
    package var type: String?
    /// The app's display name.
    package var application: String?
    /// Unix time data access expires.
    package var dataAccessExpiresAt: Int?
    /// Unix time the token expires; 0 means never.
    package var expiresAt: Int?
    /// Whether the token can be used now.
    package var isValid: Bool
    /// Unix time the token was issued; Facebook omits it for some invalid tokens.
    package var issuedAt: Int?
    /// Login context such as `auth_type` and `sso`.
    package var metadata: [String: String]?
    /// Granted permissions.
    package var scopes: [String]?
    /// Permissions limited to specific objects, such as Pages.
    package var granularScopes: [GranularScope]?
    /// The app-scoped user id.
    package var userID: String?
    /// Why the token is invalid.
    package var error: DebugTokenError?

    /// Creates a description.
    package init(
        appID: String? = nil, type: String? = nil, application: String? = nil,
        dataAccessExpiresAt: Int? = nil, expiresAt: Int? = nil, isValid: Bool, issuedAt: Int? = nil,
        metadata: [String: String]? = nil, scopes: [String]? = nil, granularScopes: [GranularScope]? = nil,
        userID: String? = nil, error: DebugTokenError? = nil
    ) {
        self.appID = appID
        self.type = type
        self.application = application
        self.dataAccessExpiresAt = dataAccessExpiresAt
        self.expiresAt = expiresAt
        self.isValid = isValid
        self.issuedAt = issuedAt
        self.metadata = metadata
        self.scopes = scopes
        self.granularScopes = granularScopes
        self.userID = userID
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case appID = "app_id", type, application
        case dataAccessExpiresAt = "data_access_expires_at", expiresAt = "expires_at"
        case isValid = "is_valid", issuedAt = "issued_at", metadata, scopes
        case granularScopes = "granular_scopes", userID = "user_id", error
    }

    /// Decodes a description, accepting numeric ids.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func identifier(_ key: CodingKeys) throws -> String? {
            if let number = try? container.decodeIfPresent(Int64.self, forKey: key) { return String(number) }
            return try container.decodeIfPresent(String.self, forKey: key)
        }
        self.init(
            appID: try identifier(.appID),
            type: try container.decodeIfPresent(String.self, forKey: .type),
            application: try container.decodeIfPresent(String.self, forKey: .application),
            dataAccessExpiresAt: try container.decodeIfPresent(Int.self, forKey: .dataAccessExpiresAt),
            expiresAt: try container.decodeIfPresent(Int.self, forKey: .expiresAt),
            isValid: try container.decode(Bool.self, forKey: .isValid),
            issuedAt: try container.decodeIfPresent(Int.self, forKey: .issuedAt),
            metadata: try container.decodeIfPresent([String: String].self, forKey: .metadata),
            scopes: try container.decodeIfPresent([String].self, forKey: .scopes),
            granularScopes: try container.decodeIfPresent([GranularScope].self, forKey: .granularScopes),
            userID: try identifier(.userID),
            error: try container.decodeIfPresent(DebugTokenError.self, forKey: .error))
    }

    /// Encodes in the order of Facebook's documented sample, with `error` at its alphabetical
    /// place (the observed garbage-token answer is `error`, `is_valid`, `scopes`) and `metadata`
    /// sorted so output is stable.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(appID, forKey: .appID)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(application, forKey: .application)
        try container.encodeIfPresent(dataAccessExpiresAt, forKey: .dataAccessExpiresAt)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encode(isValid, forKey: .isValid)
        try container.encodeIfPresent(issuedAt, forKey: .issuedAt)
        if let metadata {
            let sorted = JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
            try container.encode(sorted, forKey: .metadata)
        }
        try container.encodeIfPresent(scopes, forKey: .scopes)
        try container.encodeIfPresent(granularScopes, forKey: .granularScopes)
        try container.encodeIfPresent(userID, forKey: .userID)
    }
}

/// A permission granted only for some objects: `{"scope":"pages_show_list","target_ids":["123"]}`.
package struct GranularScope: Sendable, Equatable, Codable {
    /// The permission.
    package var scope: String
    /// The object ids it covers; absent means all.
    package var targetIDs: [String]?

    /// Creates an entry.
    package init(scope: String, targetIDs: [String]? = nil) {
        self.scope = scope
        self.targetIDs = targetIDs
    }

    enum CodingKeys: String, CodingKey {
        case scope, targetIDs = "target_ids"
    }
}

/// Why `debug_token` considers a token invalid. The key is `subcode`, not `error_subcode` as in
/// Graph errors, which clients parsing both must keep apart.
package struct DebugTokenError: Sendable, Equatable, Codable {
    /// The Graph error code, e.g. 190.
    package var code: Int
    /// The Graph error message.
    package var message: String
    /// The refinement, e.g. 463 for expired.
    package var subcode: Int?

    /// Creates an error.
    package init(code: Int, message: String, subcode: Int? = nil) {
        self.code = code
        self.message = message
        self.subcode = subcode
    }

    /// The `debug_token` form of a Graph error.
    package init(_ graphError: GraphError) {
        self.init(code: graphError.code, message: graphError.message, subcode: graphError.errorSubcode)
    }
}

extension DebugTokenResponse {
    /// The reply exactly as its `Encodable` conformance writes it, built without an encoder: `debug_token` is a
    /// hot route, and going through `Codable` (`JSONValue(encoding:)`) builds an encoder and boxes every field.
    package var json: JSONValue { .object(JSONObject([("data", data.json)])) }
}

extension DebugTokenData {
    /// See ``DebugTokenResponse/json``: the same keys in the same order as ``encode(to:)``.
    package var json: JSONValue {
        var pairs: [(String, JSONValue)] = []
        pairs.reserveCapacity(13)
        if let appID { pairs.append(("app_id", .string(appID))) }
        if let type { pairs.append(("type", .string(type))) }
        if let application { pairs.append(("application", .string(application))) }
        if let dataAccessExpiresAt { pairs.append(("data_access_expires_at", .int(Int64(dataAccessExpiresAt)))) }
        if let error { pairs.append(("error", error.json)) }
        if let expiresAt { pairs.append(("expires_at", .int(Int64(expiresAt)))) }
        pairs.append(("is_valid", .bool(isValid)))
        if let issuedAt { pairs.append(("issued_at", .int(Int64(issuedAt)))) }
        if let metadata {
            pairs.append(
                (
                    "metadata",
                    .object(
                        JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
                ))
        }
        if let scopes { pairs.append(("scopes", .array(scopes.map { .string($0) }))) }
        if let granularScopes { pairs.append(("granular_scopes", .array(granularScopes.map(\.json)))) }
        if let userID { pairs.append(("user_id", .string(userID))) }
        return .object(JSONObject(pairs))
    }
}

extension GranularScope {
    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("scope", .string(scope))]
        if let targetIDs { pairs.append(("target_ids", .array(targetIDs.map { .string($0) }))) }
        return .object(JSONObject(pairs))
    }
}

extension DebugTokenError {
    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("code", .int(Int64(code))), ("message", .string(message))]
        if let subcode { pairs.append(("subcode", .int(Int64(subcode)))) }
        return .object(JSONObject(pairs))
    }
}
