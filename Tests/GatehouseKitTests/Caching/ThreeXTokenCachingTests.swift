import Foundation
import GatehouseProtocol
import Testing
import GatehouseKit

/// The seeds' (SDK 3.x) token-cache API: `FBAccessTokenData`'s dictionary helpers, the
/// `FBSessionTokenCachingStrategy` hooks the SDK calls, and `FBErrorUtility` with the 3.x userInfo keys.
@Suite struct ThreeXTokenCachingTests {
    static let expiry = Date(timeIntervalSince1970: 1_900_000_000)
    static let refresh = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(loginType: LoginType = .facebookViaSafari) -> AccessToken {
        AccessToken(
            tokenString: "EAA-3x", permissions: ["public_profile", "email"], declinedPermissions: ["user_friends"],
            expiredPermissions: [], appID: "424242", userID: "77", expirationDate: expiry, refreshDate: refresh,
            dataAccessExpirationDate: nil, loginType: loginType)
    }

    @Test func dictionaryUsesFacebooksKeysAndRoundTrips() throws {
        let dictionary = Self.token().dictionary()
        #expect(dictionary["com.facebook.sdk:TokenInformationTokenKey"] as? String == "EAA-3x")
        #expect(dictionary["com.facebook.sdk:TokenInformationExpirationDateKey"] as? Date == Self.expiry)
        #expect(dictionary["com.facebook.sdk:TokenInformationRefreshDateKey"] as? Date == Self.refresh)
        #expect(
            dictionary["com.facebook.sdk:TokenInformationPermissionsKey"] as? [String] == ["email", "public_profile"])
        #expect(dictionary["com.facebook.sdk:TokenInformationDeclinedPermissionsKey"] as? [String] == ["user_friends"])
        #expect((dictionary["com.facebook.sdk:TokenInformationLoginTypeLoginKey"] as? NSNumber)?.intValue == 3)
        #expect(dictionary["com.facebook.sdk:TokenInformationUserFBIDKey"] as? String == "77")
        #expect(dictionary["com.facebook.sdk:TokenInformationAppIDKey"] as? String == "424242")
        #expect(dictionary[FBTokenInformationDataAccessExpirationDateKey] == nil)
        #expect(FBAccessTokenData.createTokenFromDictionary(dictionary) == Self.token())
        #expect(FBAccessTokenData.createToken(from: dictionary) == Self.token())
        // Through a property list, as the seeds' sample stores it.
        let plist = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
        let back = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        #expect(FBAccessTokenData.createTokenFromDictionary(back) == Self.token())
    }

    @Test func aDictionaryWithoutATokenIsNoToken() {
        #expect(FBAccessTokenData.createTokenFromDictionary([:]) == nil)
        #expect(FBAccessTokenData.createTokenFromDictionary([FBTokenInformationTokenKey: ""]) == nil)
        #expect(FBSessionTokenCachingStrategy.isValidTokenInformation([:]) == false)
        #expect(FBSessionTokenCachingStrategy.isValidTokenInformation(Self.token().dictionary()))
    }

    @Test func aThreeXDictionaryWithOnlyTheOldKeysReads() {
        // What a 3.x app wrote: no app id, user id or declined list, the login type as a number.
        let token = FBAccessTokenData.createTokenFromDictionary([
            FBTokenInformationTokenKey: "EAA-old", FBTokenInformationExpirationDateKey: Self.expiry,
            FBTokenInformationPermissionsKey: ["email", "publish_stream"],
            FBTokenInformationLoginTypeLoginKey: NSNumber(value: 3),
            FBTokenInformationRefreshDateKey: Self.refresh,
        ])
        #expect(token?.tokenString == "EAA-old")
        #expect(token?.permissions == [Permission("email"), Permission("publish_stream")])
        #expect(token?.loginType == .facebookViaSafari)
        #expect(token?.expirationDate == Self.expiry)
        #expect(token?.userID == "")
    }

    @Test func loginTypesKeepTheThreeXNumbers() {
        let numbers = LoginType.allCases.map { ($0, $0.sessionLoginTypeNumber) }
        #expect(numbers.map(\.1) == [0, 1, 2, 3, 4, 5, 0])
        for type in LoginType.allCases where type != .device {
            #expect(LoginType(sessionLoginTypeNumber: type.sessionLoginTypeNumber) == type)
        }
        #expect(LoginType(sessionLoginTypeNumber: 99) == LoginType.none)
    }

    /// A subclass counting the hooks, as an app's strategy overrides them.
    final class CountingStrategy: FBSessionTokenCachingStrategy, @unchecked Sendable {
        var cached: [AccessToken] = []
        var fetches = 0
        var clears = 0
        override func cacheFBAccessTokenData(_ accessToken: FBAccessTokenData) {
            cached.append(accessToken)
            super.cacheFBAccessTokenData(accessToken)
        }
        override func fetchFBAccessTokenData() -> FBAccessTokenData? {
            fetches += 1
            return super.fetchFBAccessTokenData()
        }
        override func clearToken() {
            clears += 1
            super.clearToken()
        }
    }

    @Test func theSDKReachesTheHooksThroughTokenCaching() async {
        let strategy = CountingStrategy()
        let settings = Settings()
        settings.appID = "424242"
        let environment = GatehouseKitEnvironment(settings: settings, tokenCache: strategy)
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            AccessToken.current = Self.token()
        }
        #expect(strategy.cached == [Self.token()])
        #expect(strategy.fetchTokenInformation()?[FBTokenInformationTokenKey] as? String == "EAA-3x")
        // A fresh environment on the same strategy reads through fetchFBAccessTokenData.
        let relaunched = GatehouseKitEnvironment(settings: settings, tokenCache: strategy)
        let fetchesBefore = strategy.fetches
        let session = Session(permissions: ["public_profile"], environment: relaunched)
        #expect(session.state == .createdTokenLoaded)
        #expect(strategy.fetches > fetchesBefore)
        session.closeAndClearTokenInformation()
        #expect(strategy.clears == 1)
        #expect(strategy.fetchFBAccessTokenData() == nil)
    }

    @Test func graphErrorsCarryTheThreeXKeysAndCategories() throws {
        let body = try JSONValue.parse(
            Data(
                #"{"error":{"message":"(#200) Requires extended permission: publish_actions","type":"OAuthException","code":200}}"#
                    .utf8))
        let error = try #require(GraphAPIError(body: body, httpStatusCode: 403))
        let info = (error as NSError).userInfo
        #expect(info["com.facebook.sdk:HTTPStatusCode"] as? Int == 403)
        let parsed = try #require(info["com.facebook.sdk:ParsedJSONResponseKey"] as? [String: Any])
        #expect(parsed["code"] as? Int == 403)
        #expect(
            ((parsed["body"] as? [String: Any])?["error"] as? [String: Any])?["message"] as? String
                == "(#200) Requires extended permission: publish_actions")
        #expect(FBErrorUtility.errorCategoryForError(error) == .permissions)
        #expect(FBErrorUtility.shouldNotifyUserForError(error) == false)

        #expect(FBErrorUtility.errorCategoryForError(CancellationError()) == .userCancelled)
        #expect(FBErrorUtility.errorCategoryForError(CoreError(.network)) == .invalid)
        let removed = GraphAPIError(code: 190, subcode: 458, message: "gone", httpStatusCode: 400, body: .null)
        #expect(FBErrorUtility.errorCategoryForError(removed) == .authenticationReopenSession)
        #expect(FBErrorUtility.shouldNotifyUserForError(removed))
        #expect(
            FBErrorUtility.userMessageForError(removed) == "The app was removed from your account. Please log in again."
        )
        #expect(
            FBErrorUtility.errorCategoryForError(
                GraphAPIError(code: 4, message: "slow", httpStatusCode: 400, body: .null)) == .throttling)
        #expect(
            FBErrorUtility.errorCategoryForError(
                GraphAPIError(code: 2, message: "later", httpStatusCode: 503, body: .null)) == .retry)
        #expect(
            FBErrorUtility.errorCategoryForError(
                GraphAPIError(code: 100, message: "bad", httpStatusCode: 400, body: .null)) == .facebookOther)
    }
}
