import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ErrorRecovery` classification and wording, and `GraphRecoveryPolicy`'s retry decision.
@Suite struct ErrorRecoveryTests {
    static func error(
        _ code: Int, _ subcode: Int? = nil, transient: Bool = false, userMessage: String? = nil,
        message: String = "m"
    ) -> GraphAPIError {
        GraphAPIError(
            code: code, subcode: subcode, type: "OAuthException", message: message, userMessage: userMessage,
            isTransient: transient, httpStatusCode: 400, body: [:])
    }

    @Test(
        arguments: [
            (190, nil, false, ErrorCategory.loginRequired), (190, 463, false, .loginRequired),
            (102, nil, false, .loginRequired),
            (2500, 459, false, .loginRequired), (100, 460, false, .loginRequired), (100, 463, false, .loginRequired),
            (100, 464, false, .loginRequired), (100, 465, false, .loginRequired), (100, 467, false, .loginRequired),
            (10, nil, false, .missingPermission), (200, nil, false, .missingPermission),
            (299, nil, false, .missingPermission),
            (4, nil, false, .throttled), (17, nil, false, .throttled), (32, nil, false, .throttled),
            (613, nil, false, .throttled),
            (1, nil, false, .transient), (2, nil, false, .transient), (9, nil, false, .transient),
            (341, nil, false, .transient),
            (100, nil, true, .transient), (100, nil, false, .other), (300, nil, false, .other),
            (190, nil, true, .loginRequired),
        ] as [(Int, Int?, Bool, ErrorCategory)])
    func graphErrorCategories(code: Int, subcode: Int?, transient: Bool, expected: ErrorCategory) {
        #expect(ErrorRecovery.category(for: Self.error(code, subcode, transient: transient)) == expected)
    }

    @Test func otherErrorCategories() {
        #expect(ErrorRecovery.category(for: URLError(.cancelled)) == .userCancelled)
        #expect(ErrorRecovery.category(for: CancellationError()) == .userCancelled)
        #expect(ErrorRecovery.category(for: CoreError(.accessTokenRequired)) == .loginRequired)
        #expect(ErrorRecovery.category(for: LoginError(.passwordChanged)) == .loginRequired)
        #expect(ErrorRecovery.category(for: CoreError(.network)) == .other)
        #expect(ErrorRecovery.category(for: URLError(.timedOut)) == .other)
    }

    @Test func notifyingAndWording() {
        let server = Self.error(100, userMessage: "Your post was too long.")
        #expect(ErrorRecovery.shouldNotifyUser(for: server))
        #expect(ErrorRecovery.userMessage(for: server) == "Your post was too long.")
        for subcode in [458, 459, 460, 464, 465, 467] {
            #expect(ErrorRecovery.shouldNotifyUser(for: Self.error(190, subcode)), "subcode \(subcode)")
        }
        #expect(!ErrorRecovery.shouldNotifyUser(for: Self.error(190, 463)))
        #expect(!ErrorRecovery.shouldNotifyUser(for: Self.error(190)))
        #expect(!ErrorRecovery.shouldNotifyUser(for: Self.error(200)))
        #expect(!ErrorRecovery.shouldNotifyUser(for: CoreError(.network)))
        #expect(
            ErrorRecovery.userMessage(for: Self.error(190, 458))
                == "The app was removed from your account. Please log in again.")
        #expect(
            ErrorRecovery.userMessage(for: Self.error(190, 460)) == "Your password has changed. Please log in again.")
        #expect(
            ErrorRecovery.userMessage(for: Self.error(190, 463)) == "Your session has expired. Please log in again.")
        #expect(
            ErrorRecovery.userMessage(for: Self.error(190)) == "Your session is no longer valid. Please log in again.")
        #expect(
            ErrorRecovery.userMessage(for: Self.error(200))
                == "The app needs your permission to do this. Please grant it and try again.")
        #expect(ErrorRecovery.userMessage(for: Self.error(2)) == "Something went wrong. Please try again.")
        #expect(
            ErrorRecovery.userMessage(for: Self.error(613)) == "Too many requests right now. Please try again later.")
        #expect(ErrorRecovery.userMessage(for: Self.error(100)) == nil)
        #expect(ErrorRecovery.userMessage(for: URLError(.cancelled)) == nil)
    }

    @Test func missingPermissionNamesAreReadFromTheMessage() {
        #expect(
            ErrorRecovery.missingPermissions(
                in: Self.error(200, message: "(#200) Requires extended permission: user_friends")) == ["user_friends"])
        #expect(
            ErrorRecovery.missingPermissions(
                in: Self.error(10, message: "(#10) Requires pages_read_engagement permission to do this")) == [
                    "pages_read_engagement"
                ])
        #expect(ErrorRecovery.missingPermissions(in: Self.error(200, message: "(#200) Permissions error")) == [])
    }

    static let current = AccessToken(
        tokenString: "t", permissions: ["public_profile", "email"], declinedPermissions: [],
        expiredPermissions: [], appID: "1", userID: "2", expirationDate: nil,
        refreshDate: Date(timeIntervalSince1970: 0), dataAccessExpirationDate: nil)

    @Test func retryDecision() {
        let policy = GraphRecoveryPolicy(recoveryEnabledCount: 1, attempterInstalled: true)
        func action(
            _ error: any Error, _ policy: GraphRecoveryPolicy = policy, flags: GraphRequestFlags = [],
            token: String? = "t",
            client: Bool = false
        ) -> GraphRecoveryAction {
            policy.action(for: error, flags: flags, requestToken: token, current: Self.current, isClientToken: client)
        }
        #expect(action(Self.error(2, transient: true)) == .retry)
        #expect(action(Self.error(100, transient: true)) == .retry)
        #expect(action(Self.error(2), flags: .disableErrorRecovery) == .none)
        #expect(action(Self.error(2), GraphRecoveryPolicy(recoveryEnabledCount: 2, attempterInstalled: true)) == .none)
        #expect(action(Self.error(613)) == .none)
        #expect(action(Self.error(100)) == .none)
        #expect(action(CoreError(.network)) == .none)
        #expect(action(Self.error(190, 463)) == .attemptLogin(permissions: ["email", "public_profile"]))
        #expect(
            action(Self.error(200, message: "(#200) Requires extended permission: user_friends"))
                == .attemptLogin(permissions: ["user_friends"]))
        #expect(action(Self.error(10)) == .attemptLogin(permissions: ["email", "public_profile"]))
        #expect(action(Self.error(190), token: "other") == .none)
        #expect(action(Self.error(190), client: true) == .none)
        #expect(
            action(Self.error(190), GraphRecoveryPolicy(recoveryEnabledCount: 1, attempterInstalled: false)) == .none)
        #expect(
            GraphRecoveryPolicy(recoveryEnabledCount: 1, attempterInstalled: true)
                .action(for: Self.error(190), flags: [], requestToken: "t", current: nil, isClientToken: false) == .none
        )
    }
}
