import Foundation
import GatehouseProtocol

// Facebook's `NSError` userInfo keys, with Facebook's values, so code reading
// `(error as NSError).userInfo[GraphRequestErrorGraphErrorCodeKey]` ports unchanged.

/// The error's ``GraphRequestError`` category, as an `NSNumber` of its raw value.
public let GraphRequestErrorKey = "com.facebook.sdk:FBSDKGraphRequestErrorKey"
/// The Graph error's `code`.
public let GraphRequestErrorGraphErrorCodeKey = "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorCodeKey"
/// The Graph error's `error_subcode`.
public let GraphRequestErrorGraphErrorSubcodeKey = "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorSubcodeKey"
/// The HTTP status of the reply.
public let GraphRequestErrorHTTPStatusCodeKey = "com.facebook.sdk:FBSDKGraphRequestErrorHTTPStatusCodeKey"
/// `{"code": <HTTP status>, "body": <parsed JSON>}`, as Facebook builds it.
public let GraphRequestErrorParsedJSONResponseKey = "com.facebook.sdk:FBSDKGraphRequestErrorParsedJSONResponseKey"
/// The seeds' (SDK 3.x) key for the same `{"code", "body"}` dictionary: `userInfo["com.facebook.sdk:ParsedJSONResponseKey"]`.
public let FBErrorParsedJSONResponseKey = "com.facebook.sdk:ParsedJSONResponseKey"
/// The seeds' (SDK 3.x) key for the HTTP status: `userInfo["com.facebook.sdk:HTTPStatusCode"]`.
public let FBErrorHTTPStatusCodeKey = "com.facebook.sdk:HTTPStatusCode"
/// The message for developers.
public let ErrorDeveloperMessageKey = "com.facebook.sdk:FBSDKErrorDeveloperMessageKey"
/// The message for people (`error_user_msg`); also under `NSLocalizedDescriptionKey`.
public let ErrorLocalizedDescriptionKey = "com.facebook.sdk:FBSDKErrorLocalizedDescriptionKey"
/// The title for people (`error_user_title`).
public let ErrorLocalizedTitleKey = "com.facebook.sdk:FBSDKErrorLocalizedErrorTitleKey"

/// Facebook's Graph error category (`FBSDKGraphRequestError`), stored under ``GraphRequestErrorKey``.
///
/// GatehouseKit's finer ``ErrorCategory`` maps onto it: transient → `.transient`, login or permission
/// errors → `.recoverable` (a new login can fix them), anything else → `.other`.
public enum GraphRequestError: UInt, Sendable, CaseIterable {
    case other = 0
    case transient = 1
    case recoverable = 2

    /// Facebook's category for `error`'s ``ErrorCategory``.
    public init(category: ErrorCategory) {
        switch category {
        case .transient, .throttled: self = .transient
        case .loginRequired, .missingPermission: self = .recoverable
        case .userCancelled, .other: self = .other
        }
    }
}

extension CoreError: CustomNSError {
    public static var errorDomain: String { domain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        guard let message else { return [:] }
        return [ErrorDeveloperMessageKey: message]
    }
}

extension LoginError: CustomNSError {
    public static var errorDomain: String { domain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        guard let message else { return [:] }
        return [ErrorDeveloperMessageKey: message]
    }
}

extension GraphAPIError: CustomNSError {
    /// `com.facebook.sdk.core`: Facebook reports Graph errors as core errors.
    public static var errorDomain: String { CoreError.domain }
    /// Always 8 (`CoreError.Code.graphAPI`).
    public var errorCode: Int { CoreErrorCode.graphAPI.rawValue }
    /// Facebook's keys; optional facts are left out when the reply lacked them.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [
            GraphRequestErrorKey: NSNumber(
                value: GraphRequestError(category: ErrorRecovery.category(for: self)).rawValue),
            GraphRequestErrorGraphErrorCodeKey: NSNumber(value: code),
            GraphRequestErrorHTTPStatusCodeKey: NSNumber(value: httpStatusCode),
            GraphRequestErrorParsedJSONResponseKey: [
                "code": NSNumber(value: httpStatusCode), "body": body.foundationObject,
            ] as [String: Any],
            ErrorDeveloperMessageKey: message,
        ]
        // The 3.x SDK's keys too, so the seeds' `userInfo[@"com.facebook.sdk:ParsedJSONResponseKey"]` reads work.
        info[FBErrorParsedJSONResponseKey] = info[GraphRequestErrorParsedJSONResponseKey]
        info[FBErrorHTTPStatusCodeKey] = NSNumber(value: httpStatusCode)
        if let subcode { info[GraphRequestErrorGraphErrorSubcodeKey] = NSNumber(value: subcode) }
        if let userMessage, !userMessage.isEmpty {
            info[ErrorLocalizedDescriptionKey] = userMessage
            info[NSLocalizedDescriptionKey] = userMessage
        }
        if let userTitle, !userTitle.isEmpty { info[ErrorLocalizedTitleKey] = userTitle }
        return info
    }
}
