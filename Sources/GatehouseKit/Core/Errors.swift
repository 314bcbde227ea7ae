import Foundation
import GatehouseProtocol

/// Error codes in Facebook's `com.facebook.sdk.core` domain.
public enum CoreErrorCode: Int, Sendable {
    case reserved = 0, encryption, invalidArgument, unknown, network, appEventsFlush, nonTextMimeType,
        protocolMismatch, graphAPI, dialogUnavailable, accessTokenRequired, appVersionUnsupported,
        browserUnavailable, bridgeAPIInterruption, bridgeAPIResponse
}

/// A core SDK error (`com.facebook.sdk.core`).
public struct CoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Facebook's `CoreError.Code`.
    public typealias Code = CoreErrorCode
    public static let domain = "com.facebook.sdk.core"
    public var code: CoreErrorCode
    public var message: String?

    public init(_ code: CoreErrorCode, message: String? = nil) {
        self.code = code
        self.message = message
    }

    public var description: String { "CoreError \(code.rawValue) (\(code))" + (message.map { ": \($0)" } ?? "") }
}

/// Error codes in Facebook's `com.facebook.sdk.login` domain.
public enum LoginErrorCode: Int, Sendable {
    case reserved = 300, unknown, passwordChanged, userCheckpointed, userMismatch, unconfirmedUser,
        systemAccountAppDisabled, systemAccountUnavailable, badChallengeString, invalidIDToken, missingAccessToken
}

/// A login error (`com.facebook.sdk.login`).
public struct LoginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Facebook's `LoginError.Code`, so `LoginError.Code.userMismatch` ports unchanged.
    public typealias Code = LoginErrorCode
    public static let domain = "com.facebook.sdk.login"
    public var code: LoginErrorCode
    public var message: String?

    public init(_ code: LoginErrorCode, message: String? = nil) {
        self.code = code
        self.message = message
    }

    public var description: String { "LoginError \(code.rawValue) (\(code))" + (message.map { ": \($0)" } ?? "") }
}

/// A Graph API error reply, typed: Facebook's CoreError 8 with everything the reply carried.
///
/// Facebook has no such struct (it hands out an `NSError` whose `userInfo` holds these facts); the name
/// `GraphRequestError` is Facebook's category enum, see ``GraphRequestError``. Bridged to `NSError` this
/// error carries Facebook's domain, code and `userInfo` keys.
public struct GraphAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Facebook's `code`.
    public var code: Int
    /// `error_subcode`.
    public var subcode: Int?
    /// `type`, e.g. `OAuthException`.
    public var type: String?
    /// `message`: for developers.
    public var message: String
    /// `error_user_title` and `error_user_msg`: for people.
    public var userTitle: String?
    public var userMessage: String?
    public var isTransient: Bool
    public var fbtraceID: String?
    /// The HTTP status of the reply.
    public var httpStatusCode: Int
    /// The whole parsed JSON body.
    public var body: JSONValue

    public init(
        code: Int, subcode: Int? = nil, type: String? = nil, message: String, userTitle: String? = nil,
        userMessage: String? = nil, isTransient: Bool = false, fbtraceID: String? = nil,
        httpStatusCode: Int, body: JSONValue
    ) {
        self.code = code
        self.subcode = subcode
        self.type = type
        self.message = message
        self.userTitle = userTitle
        self.userMessage = userMessage
        self.isTransient = isTransient
        self.fbtraceID = fbtraceID
        self.httpStatusCode = httpStatusCode
        self.body = body
    }

    /// Reads `{"error":{…}}`; nil when the body is not a Graph error.
    public init?(body: JSONValue, httpStatusCode: Int) {
        guard let e = body["error"], case .object = e else { return nil }
        self.init(
            code: Int(e["code"]?.intValue ?? 0), subcode: e["error_subcode"]?.intValue.map(Int.init),
            type: e["type"]?.stringValue,
            message: e["message"]?.stringValue ?? e["error_reason"]?.stringValue ?? e["error_msg"]?.stringValue ?? "",
            userTitle: e["error_user_title"]?.stringValue, userMessage: e["error_user_msg"]?.stringValue,
            isTransient: e["is_transient"]?.boolValue ?? false, fbtraceID: e["fbtrace_id"]?.stringValue,
            httpStatusCode: httpStatusCode, body: body)
    }

    /// Always 8: Facebook's CoreError `graphAPI`.
    public var coreCode: CoreErrorCode { .graphAPI }

    public var description: String {
        "Graph error \(code)" + (subcode.map { "/\($0)" } ?? "") + " (HTTP \(httpStatusCode)): \(message)"
    }
}
