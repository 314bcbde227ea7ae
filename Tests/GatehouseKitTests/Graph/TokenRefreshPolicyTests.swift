import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// Piggyback eligibility, the refresh merge, and the per-environment attempt log.
@Suite struct TokenRefreshPolicyTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(refreshedAt date: Date, permissions: [String] = ["email"]) -> AccessToken {
        AccessToken(
            tokenString: "t", permissions: permissions, declinedPermissions: ["user_friends"], expiredPermissions: [],
            appID: "1234", userID: "42", expirationDate: start + 3600, refreshDate: date,
            dataAccessExpirationDate: start + 7200)
    }

    @Test func piggybackAfterADayAtMostHourly() {
        let token = Self.token(refreshedAt: Self.start)
        let day: TimeInterval = 86400
        #expect(!TokenRefreshPolicy.shouldPiggyback(token: nil, now: Self.start + 2 * day, lastAttempt: nil))
        #expect(!TokenRefreshPolicy.shouldPiggyback(token: token, now: Self.start + day, lastAttempt: nil))
        #expect(TokenRefreshPolicy.shouldPiggyback(token: token, now: Self.start + day + 1, lastAttempt: nil))
        #expect(
            !TokenRefreshPolicy.shouldPiggyback(
                token: token, now: Self.start + 2 * day, lastAttempt: Self.start + 2 * day - 3600))
        #expect(
            TokenRefreshPolicy.shouldPiggyback(
                token: token, now: Self.start + 2 * day, lastAttempt: Self.start + 2 * day - 3601))
    }

    @Test func mergeTakesNewDatesAndLivePermissions() {
        let token = Self.token(refreshedAt: Self.start)
        let now = Self.start + 90000
        let merged = TokenRefreshPolicy.merge(
            token,
            extendResult: [
                "access_token": "t2", "expires_at": 1_805_184_000, "data_access_expiration_time": 1_807_776_000,
            ],
            permissionsResult: [
                "data": [
                    ["permission": "public_profile", "status": "granted"],
                    ["permission": "email", "status": "declined"],
                    ["permission": "user_birthday", "status": "expired"],
                ]
            ],
            now: now)
        #expect(
            merged
                == AccessToken(
                    tokenString: "t2", permissions: ["public_profile"], declinedPermissions: ["email"],
                    expiredPermissions: ["user_birthday"], appID: "1234", userID: "42",
                    expirationDate: Date(timeIntervalSince1970: 1_805_184_000), refreshDate: now,
                    dataAccessExpirationDate: Date(timeIntervalSince1970: 1_807_776_000)))

        // Missing pieces keep the old values; only the refresh date moves.
        let kept = TokenRefreshPolicy.merge(token, extendResult: ["expires_at": 0], permissionsResult: nil, now: now)
        #expect(
            kept
                == AccessToken(
                    tokenString: "t", permissions: ["email"], declinedPermissions: ["user_friends"],
                    expiredPermissions: [],
                    appID: "1234", userID: "42", expirationDate: Self.start + 3600, refreshDate: now,
                    dataAccessExpirationDate: Self.start + 7200))
    }

    @Test func attemptsAreClaimedOncePerEnvironmentAndHour() {
        let clock = GraphTestClock(Self.start + 2 * 86400)
        let environment = GatehouseKitEnvironment(clock: clock)
        let other = GatehouseKitEnvironment(clock: clock)
        let attempts = TokenRefreshAttempts()
        let stale = Self.token(refreshedAt: Self.start)
        #expect(attempts.lastAttempt(in: environment) == nil)
        #expect(attempts.claimRefresh(for: stale, in: environment))
        #expect(attempts.lastAttempt(in: environment) == clock.now())
        #expect(!attempts.claimRefresh(for: stale, in: environment))
        #expect(attempts.claimRefresh(for: stale, in: other))
        clock.advance(by: 3601)
        #expect(attempts.claimRefresh(for: stale, in: environment))
        #expect(!attempts.claimRefresh(for: nil, in: GatehouseKitEnvironment(clock: clock)))
    }
}

extension GraphSerialTests {
    /// `GraphRequest`'s defaults and the refresh requests, which read the installed environment.
    @Suite struct RequestDefaults {
        @Test func initialisersFollowFacebooksDefaults() throws {
            let settings = Settings()
            settings.graphAPIVersion = "v19.0"
            let environment = GatehouseKitEnvironment(settings: settings)
            GatehouseKitEnvironment.current = environment
            let token = TokenRefreshPolicyTests.token(refreshedAt: TokenRefreshPolicyTests.start)
            environment.setCurrentAccessToken(token)

            let plain = GraphRequest(graphPath: "me")
            #expect(plain.parameters as? [String: String] == ["fields": ""])
            #expect(plain.httpMethod == .get)
            #expect(plain.version == "v19.0")
            #expect(plain.tokenString == "t")
            #expect(plain.flags == [])
            #expect(GraphRequest(graphPath: "me", parameters: ["a": "b"], httpMethod: .post).httpMethod == .post)
            let explicit = GraphRequest(
                graphPath: "x", parameters: nil, tokenString: nil, version: "v2.8", httpMethod: "delete")
            #expect(explicit.tokenString == nil && explicit.version == "v2.8" && explicit.httpMethod == .delete)
            let flagged = GraphRequest(
                graphPath: "x", parameters: [:], tokenString: "u", httpMethod: .get, flags: .skipClientToken)
            #expect(flagged.flags == .skipClientToken && flagged.version == "v19.0")
            #expect(
                GraphRequestFlags.skipClientToken.rawValue == 2
                    && GraphRequestFlags.doNotInvalidateTokenOnError.rawValue == 4
                    && GraphRequestFlags.disableErrorRecovery.rawValue == 8)

            settings.isGraphErrorRecoveryEnabled = false
            let forced = GraphRequest(graphPath: "me", parameters: [:], flags: .skipClientToken)
            #expect(forced.flags == [.skipClientToken, .disableErrorRecovery])
            #expect(forced.isGraphErrorRecoveryDisabled)
            forced.setGraphErrorRecoveryDisabled(false)
            #expect(forced.flags == .skipClientToken)
            #expect(forced.description == "GraphRequest(GET v19.0/me)")
        }

        @Test func refreshPairMatchesFacebooks() {
            GatehouseKitEnvironment.current = GatehouseKitEnvironment()
            let token = TokenRefreshPolicyTests.token(refreshedAt: TokenRefreshPolicyTests.start)
            let extend = TokenRefreshPolicy.extendRequest(for: token, version: "v27.0")
            #expect(extend.graphPath == "oauth/access_token")
            #expect(
                extend.wireComponents.parameters == [
                    "grant_type": "fb_extend_sso_token", "fields": "", "client_id": "1234",
                ])
            #expect(extend.tokenString == "t" && extend.flags == .disableErrorRecovery)
            let permissions = TokenRefreshPolicy.permissionsRequest(for: token, version: "v27.0")
            #expect(permissions.graphPath == "me/permissions")
            #expect(permissions.wireComponents.parameters == ["fields": ""])
            #expect(permissions.flags == .disableErrorRecovery)
        }
    }
}
