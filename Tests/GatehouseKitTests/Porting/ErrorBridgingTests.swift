import Foundation
import GatehouseKit
import GatehouseProtocol
import Testing

/// Item 13: errors reach `NSError`-reading code exactly as Facebook's do.
@Suite struct ErrorBridgingTests {
    static let body: JSONValue = [
        "error": [
            "message": "(#200) Requires extended permission: user_friends", "type": "OAuthException", "code": 200,
            "error_subcode": 33, "error_user_title": "Permission needed", "error_user_msg": "Allow friends first.",
            "fbtrace_id": "Atrace",
        ]
    ]

    @Test func graphErrorBridgesToCoreErrorEightWithFacebooksKeys() throws {
        let error: any Error = try #require(GraphAPIError(body: Self.body, httpStatusCode: 403))
        let ns = error as NSError
        #expect(ns.domain == "com.facebook.sdk.core")
        #expect(ns.code == 8)
        #expect(ns.userInfo[GraphRequestErrorGraphErrorCodeKey] as? NSNumber == 200)
        #expect(ns.userInfo[GraphRequestErrorGraphErrorSubcodeKey] as? NSNumber == 33)
        #expect(ns.userInfo[GraphRequestErrorHTTPStatusCodeKey] as? NSNumber == 403)
        #expect(
            ns.userInfo[GraphRequestErrorKey] as? NSNumber == NSNumber(value: GraphRequestError.recoverable.rawValue))
        #expect(ns.userInfo[ErrorDeveloperMessageKey] as? String == "(#200) Requires extended permission: user_friends")
        #expect(ns.userInfo[ErrorLocalizedDescriptionKey] as? String == "Allow friends first.")
        #expect(ns.userInfo[ErrorLocalizedTitleKey] as? String == "Permission needed")
        #expect(ns.localizedDescription == "Allow friends first.")
        let parsed = try #require(ns.userInfo[GraphRequestErrorParsedJSONResponseKey] as? [String: Any])
        #expect(parsed["code"] as? NSNumber == 403)
        let inner = (parsed["body"] as? [String: Any])?["error"] as? [String: Any]
        #expect(inner?["fbtrace_id"] as? String == "Atrace")
        #expect(inner?["code"] as? Int == 200)
    }

    @Test func keysHaveFacebooksValues() {
        #expect(GraphRequestErrorKey == "com.facebook.sdk:FBSDKGraphRequestErrorKey")
        #expect(GraphRequestErrorGraphErrorCodeKey == "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorCodeKey")
        #expect(GraphRequestErrorGraphErrorSubcodeKey == "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorSubcodeKey")
        #expect(GraphRequestErrorHTTPStatusCodeKey == "com.facebook.sdk:FBSDKGraphRequestErrorHTTPStatusCodeKey")
        #expect(
            GraphRequestErrorParsedJSONResponseKey == "com.facebook.sdk:FBSDKGraphRequestErrorParsedJSONResponseKey")
        #expect(ErrorDeveloperMessageKey == "com.facebook.sdk:FBSDKErrorDeveloperMessageKey")
        #expect(ErrorLocalizedDescriptionKey == "com.facebook.sdk:FBSDKErrorLocalizedDescriptionKey")
    }

    @Test func categoryEnumHasFacebooksValuesAndMapping() throws {
        #expect(
            GraphRequestError.other.rawValue == 0 && GraphRequestError.transient.rawValue == 1
                && GraphRequestError.recoverable.rawValue == 2)
        func category(_ code: Int, _ transient: Bool = false) throws -> NSNumber? {
            let body: JSONValue = [
                "error": ["message": "m", "code": .int(Int64(code)), "is_transient": .bool(transient)]
            ]
            let error: any Error = try #require(GraphAPIError(body: body, httpStatusCode: 400))
            return (error as NSError).userInfo[GraphRequestErrorKey] as? NSNumber
        }
        #expect(try category(190) == 2)
        #expect(try category(2) == 1)
        #expect(try category(100, true) == 1)
        #expect(try category(100) == 0)
    }

    @Test func loginAndCoreErrorsBridgeWithTheirDomains() {
        let login = LoginError(LoginError.Code.userMismatch, message: "another user") as NSError
        #expect(login.domain == "com.facebook.sdk.login")
        #expect(login.code == 304)
        #expect(login.userInfo[ErrorDeveloperMessageKey] as? String == "another user")
        let core = CoreError(CoreError.Code.browserUnavailable) as NSError
        #expect(core.domain == "com.facebook.sdk.core")
        #expect(core.code == 12)
        #expect(core.userInfo.isEmpty)
        #expect(LoginError.Code.badChallengeString.rawValue == 308)
    }
}
