import Foundation

/// A Graph API error as Facebook writes it inside `{"error":{…}}`.
///
/// Clients branch on `code`/`error_subcode` (the iOS SDK drops its token on 190, social-core maps
/// HTTP statuses to exceptions), so the factories in `GraphError+Factories.swift` reproduce
/// Facebook's exact codes, messages and statuses rather than inventing new ones. Each factory also says why, in
/// plain words, for the request journal (``explanation``); that reason never reaches the wire.
package struct GraphError: Error, Sendable, Equatable, Codable {
    /// Developer-facing text; non-auth messages start with `(#code) `.
    package var message: String
    /// `OAuthException` for auth and most errors, `GraphMethodException` for unsupported calls.
    package var type: String
    /// The numeric error code (`error.code`).
    package var code: Int
    /// The refinement of `code`, e.g. 463 for an expired token (`error_subcode`).
    package var errorSubcode: Int?
    /// A title clients may show to the user (`error_user_title`).
    package var errorUserTitle: String?
    /// A message clients may show to the user (`error_user_msg`).
    package var errorUserMsg: String?
    /// An opaque id for support requests (`fbtrace_id`).
    package var fbtraceID: String?
    /// Whether retrying the same request may succeed (`is_transient`).
    package var isTransient: Bool?
    /// The HTTP status to send; not part of the JSON body, hence not encoded.
    package var httpStatus: Int
    /// Why the request was refused, in plain words, for the request journal, the console's activity page and
    /// `gatehouse logs`; set where the error is made. Never on the wire (not encoded, not compared); nil only for
    /// an error decoded from a response.
    package var explanation: String?

    /// Creates an error; `httpStatus` defaults to 400, Facebook's status for most errors. `explanation` is
    /// required so that no error the server makes reaches the journal without its reason.
    package init(
        message: String,
        type: String = "OAuthException",
        code: Int,
        errorSubcode: Int? = nil,
        errorUserTitle: String? = nil,
        errorUserMsg: String? = nil,
        fbtraceID: String? = nil,
        isTransient: Bool? = nil,
        httpStatus: Int = 400,
        explanation: String
    ) {
        self.init(
            wireMessage: message, type: type, code: code, errorSubcode: errorSubcode, errorUserTitle: errorUserTitle,
            errorUserMsg: errorUserMsg, fbtraceID: fbtraceID, isTransient: isTransient, httpStatus: httpStatus)
        self.explanation = explanation
    }

    /// An error as a response carries it, without a journal explanation (decoding, and errors read from the wire).
    package init(
        wireMessage message: String,
        type: String = "OAuthException",
        code: Int,
        errorSubcode: Int? = nil,
        errorUserTitle: String? = nil,
        errorUserMsg: String? = nil,
        fbtraceID: String? = nil,
        isTransient: Bool? = nil,
        httpStatus: Int = 400
    ) {
        // A backstop for ``echoLimit``: whatever a message repeats, it stays small (O(1) for native strings).
        self.message =
            message.utf8.count > Self.maximumMessageBytes
            ? String(message.prefix(Self.maximumMessageBytes / 2)) + "…" : message
        self.type = type
        self.code = code
        self.errorSubcode = errorSubcode
        self.errorUserTitle = errorUserTitle
        self.errorUserMsg = errorUserMsg
        self.fbtraceID = fbtraceID
        self.isTransient = isTransient
        self.httpStatus = httpStatus
    }

    /// The longest message an error carries; Facebook's own are a few hundred bytes.
    package static let maximumMessageBytes = 2048

    /// How many characters of a client's own input an error message repeats. Facebook's echoes are ids,
    /// field names and paths, far shorter; without a bound a 1 MiB path came back as a 1 MiB error, and a batch
    /// could feed such errors into its later entries (issue 27, finding 1).
    package static let echoLimit = 200

    /// `text` as an error message may repeat it: the first ``echoLimit`` characters, then `…` if there was more.
    package static func echo(_ text: some StringProtocol) -> String {
        let head = text.prefix(echoLimit)  // walks at most echoLimit characters, however long the text
        return head.endIndex == text.endIndex ? String(text) : String(head) + "…"
    }

    enum CodingKeys: String, CodingKey {
        case message, type, code
        case errorSubcode = "error_subcode"
        case errorUserTitle = "error_user_title"
        case errorUserMsg = "error_user_msg"
        case fbtraceID = "fbtrace_id"
        case isTransient = "is_transient"
    }

    /// Decodes the body of `error`; the HTTP status is not in the JSON, so it is set to 400.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            wireMessage: try container.decode(String.self, forKey: .message),
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? "OAuthException",
            code: try container.decode(Int.self, forKey: .code),
            errorSubcode: try container.decodeIfPresent(Int.self, forKey: .errorSubcode),
            errorUserTitle: try container.decodeIfPresent(String.self, forKey: .errorUserTitle),
            errorUserMsg: try container.decodeIfPresent(String.self, forKey: .errorUserMsg),
            fbtraceID: try container.decodeIfPresent(String.self, forKey: .fbtraceID),
            isTransient: try container.decodeIfPresent(Bool.self, forKey: .isTransient)
        )
    }

    /// Two errors are the same when a client sees them the same: every wire field and the HTTP status. The
    /// journal's ``explanation`` is left out, so an error decoded from a response equals the factory's.
    package static func == (lhs: GraphError, rhs: GraphError) -> Bool {
        lhs.message == rhs.message && lhs.type == rhs.type && lhs.code == rhs.code
            && lhs.errorSubcode == rhs.errorSubcode && lhs.errorUserTitle == rhs.errorUserTitle
            && lhs.errorUserMsg == rhs.errorUserMsg && lhs.fbtraceID == rhs.fbtraceID
            && lhs.isTransient == rhs.isTransient && lhs.httpStatus == rhs.httpStatus
    }

    /// Encodes the members Facebook sends, in Facebook's order, omitting absent optionals.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message, forKey: .message)
        try container.encode(type, forKey: .type)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(errorSubcode, forKey: .errorSubcode)
        try container.encodeIfPresent(errorUserTitle, forKey: .errorUserTitle)
        try container.encodeIfPresent(errorUserMsg, forKey: .errorUserMsg)
        try container.encodeIfPresent(fbtraceID, forKey: .fbtraceID)
        try container.encodeIfPresent(isTransient, forKey: .isTransient)
    }

    /// The complete response body, `{"error":{…}}`, with keys in Facebook's order.
    package var envelopeJSON: JSONValue {
        var body: JSONObject = ["message": .string(message), "type": .string(type), "code": .int(Int64(code))]
        if let errorSubcode { body["error_subcode"] = .int(Int64(errorSubcode)) }
        if let errorUserTitle { body["error_user_title"] = .string(errorUserTitle) }
        if let errorUserMsg { body["error_user_msg"] = .string(errorUserMsg) }
        if let fbtraceID { body["fbtrace_id"] = .string(fbtraceID) }
        if let isTransient { body["is_transient"] = .bool(isTransient) }
        return ["error": .object(body)]
    }

    /// A copy carrying `fbtrace_id`. Facebook sends one with every error; Gatehouse's server sends none (its
    /// errors carry exactly the fields the tests pin), so clients must treat the id as optional, as Facebook's SDKs do.
    package func withTraceID(_ traceID: String) -> GraphError {
        var copy = self
        copy.fbtraceID = traceID
        return copy
    }

    /// The `WWW-Authenticate` header Facebook adds to `OAuthException` responses, or nil for
    /// other types.
    ///
    /// The kind is `invalid_token` for token problems (190, 102, 104, 2500), `invalid_code` for
    /// authorization-code problems, `invalid_client` for bad client credentials, else
    /// `invalid_request`. Code 1 is both "unknown error" and the token endpoint's bad secret, so
    /// the secret case is recognised by its message. Quotes, backslashes and control characters in
    /// the message are escaped or replaced, because messages can echo request input and must not
    /// be able to break out of the header.
    package var wwwAuthenticate: String? {
        guard type == "OAuthException" else { return nil }
        return "OAuth \"Facebook Platform\" \"\(authenticateKind)\" \"\(Self.quotedStringBody(message))\""
    }

    private var authenticateKind: String {
        switch code {
        case 190, 102, 104, 2500:
            return "invalid_token"
        case 100
        where [36007, 36008, 36009].contains(errorSubcode ?? 0)
            || message == GraphError.invalidCodeFormat.message:
            return "invalid_code"
        case 101:
            return "invalid_client"
        case 1 where message == GraphError.invalidClientSecret.message:
            return "invalid_client"
        default:
            return "invalid_request"
        }
    }

    private static func quotedStringBody(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\":
                output += "\\"
                output.unicodeScalars.append(scalar)
            case "\u{00}"..."\u{1F}", "\u{7F}":
                output += " "
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}

/// The body of a Graph API error response.
package struct GraphErrorEnvelope: Sendable, Equatable, Codable {
    /// The error.
    package var error: GraphError

    /// Wraps an error.
    package init(error: GraphError) {
        self.error = error
    }
}
