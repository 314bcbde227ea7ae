import Foundation
import GatehouseTesting
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTestSupport
import Testing

extension LiveGraphSerialTests {
    /// What Graph replies do to `AccessToken.current`: invalidation, refresh, piggyback, login recovery.
    @Suite struct LiveSession {
        @Test func revokedTokenIsDroppedAndTheChangeIsPosted() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let environment = GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token
            let removed = try await GraphRequest(graphPath: "me/permissions", parameters: [:], httpMethod: .delete)
                .startJSON()
            #expect(removed == ["success": true])

            // With `.doNotInvalidateTokenOnError` the token stays.
            await #expect(throws: GraphAPIError.self) {
                try await GraphRequest(
                    graphPath: "me", parameters: ["fields": "id"], flags: .doNotInvalidateTokenOnError
                ).startJSON()
            }
            #expect(AccessToken.current == token)

            let posted = GraphNotificationLog(environment)
            do {
                _ = try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON()
                Issue.record("a revoked token was accepted")
            } catch let error as GraphAPIError {
                #expect(error.code == 190)
                #expect(error.subcode == 458)
                #expect(
                    error.message
                        == "Error validating access token: The user has not authorized application \(server.appID).")
                #expect(ErrorRecovery.category(for: error) == .loginRequired)
                #expect(ErrorRecovery.shouldNotifyUser(for: error))
                #expect(
                    ErrorRecovery.userMessage(for: error)
                        == "The app was removed from your account. Please log in again.")
            }
            #expect(AccessToken.current == nil)
            let change = try #require(posted.notifications.first)
            #expect(posted.notifications.count == 1)
            #expect(change.userInfo?[AccessTokenChangeOldKey] as? AccessToken == token)
            #expect(change.userInfo?[AccessTokenChangeNewKey] == nil)
        }

        @Test func refreshExtendsTheTokenAndReadsLivePermissions() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let clock = GraphTestClock(Date())
            GraphTestSupport.install(server, clock: clock)
            await #expect(throws: CoreError(.accessTokenRequired, message: "No current access token to refresh")) {
                try await AccessToken.refreshCurrentAccessToken()
            }
            let live = try await GraphTestSupport.logIn(server)
            _ = try await GraphRequest(
                graphPath: "me/permissions/user_friends", parameters: [:], tokenString: live.tokenString,
                version: nil, httpMethod: .delete
            ).startJSON()
            // A stale local copy: expiring in a minute, believing only public_profile is granted.
            let stale = AccessToken(
                tokenString: live.tokenString, permissions: ["public_profile"], declinedPermissions: [],
                expiredPermissions: [], appID: server.appID, userID: live.userID,
                expirationDate: clock.now() + 60, refreshDate: clock.now() - 3600, dataAccessExpirationDate: nil)
            AccessToken.current = stale
            clock.advance(by: 5)

            let refreshed = try await AccessToken.refreshCurrentAccessToken()
            #expect(refreshed.tokenString == live.tokenString)
            #expect(refreshed.expirationDate > Date() + 50 * 86400)
            #expect(refreshed.dataAccessExpirationDate > Date() + 80 * 86400)
            #expect(refreshed.refreshDate == clock.now())
            #expect(refreshed.permissions == [.publicProfile, .email])
            #expect(refreshed.declinedPermissions == [.userFriends])
            #expect(refreshed.expiredPermissions.isEmpty)
            #expect(AccessToken.current == refreshed)

            // The completion form hands the refreshed token over on the main actor.
            clock.advance(by: 5)
            let (result, error) = await withCheckedContinuation { continuation in
                AccessToken.refreshCurrentAccessToken { _, result, error in
                    continuation.resume(returning: (GraphUncheckedBox(result).value as? AccessToken, error))
                }
            }
            #expect(error == nil)
            #expect(result?.refreshDate == clock.now())
            #expect(AccessToken.current == result)
        }

        @Test func staleTokenIsRefreshedOnTheSideOfAnyRequest() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let clock = GraphTestClock(Date())
            let environment = GraphTestSupport.install(server, clock: clock)
            let live = try await GraphTestSupport.logIn(server)
            let stale = AccessToken(
                tokenString: live.tokenString, permissions: ["email"], declinedPermissions: [], expiredPermissions: [],
                appID: server.appID, userID: live.userID, expirationDate: clock.now() + 3600,
                refreshDate: clock.now(), dataAccessExpirationDate: nil)
            AccessToken.current = stale

            // A fresh token: no refresh.
            _ = try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON()
            #expect(AccessToken.current == stale)
            #expect(TokenRefreshAttempts.shared.lastAttempt(in: environment) == nil)

            // A day and a bit later the same call carries the refresh pair.
            clock.advance(by: 25 * 3600)
            let me = try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON()
            #expect(me == ["id": .string(live.userID)])
            let refreshed = try #require(AccessToken.current)
            #expect(refreshed.refreshDate == clock.now())
            #expect(refreshed.expirationDate > Date() + 50 * 86400)
            #expect(refreshed.permissions == [.publicProfile, .email, .userFriends])
            #expect(TokenRefreshAttempts.shared.lastAttempt(in: environment) == clock.now())

            // Stale again 30 minutes later (a restored old token): within the hour nothing is tried.
            clock.advance(by: 1800)
            AccessToken.current = stale
            _ = try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON()
            #expect(AccessToken.current == stale)
            // After the hour it is.
            clock.advance(by: 1900)
            _ = try await GraphRequest(graphPath: "me", parameters: ["fields": "id"]).startJSON()
            #expect(AccessToken.current?.refreshDate == clock.now())
        }

        @Test func missingPermissionIsRecoveredByTheLoginAttempterAndRetried() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let first = try await GraphTestSupport.logIn(server)
            AccessToken.current = first
            _ = try await GraphRequest(graphPath: "me/permissions/user_friends", parameters: [:], httpMethod: .delete)
                .startJSON()

            // Declining again: the attempter reports failure and the original error comes back.
            let attempter = GraphReLoginAttempter(server: server, grant: false)
            ErrorRecovery.loginAttempter = attempter
            defer { ErrorRecovery.loginAttempter = nil }
            do {
                _ = try await GraphRequest(graphPath: "me/friends").startJSON()
                Issue.record("friends answered without user_friends")
            } catch let error as GraphAPIError {
                #expect(error.code == 200)
                #expect(error.httpStatusCode == 403)
                #expect(ErrorRecovery.category(for: error) == .missingPermission)
            }
            #expect(await attempter.calls == [["user_friends"]])
            #expect(AccessToken.current == first)

            // Granting: the request is retried with the new token and succeeds.
            let granting = GraphReLoginAttempter(server: server, grant: true)
            ErrorRecovery.loginAttempter = granting
            let friends = try await GraphRequest(graphPath: "me/friends").startJSON()
            #expect(friends["summary"]?["total_count"]?.intValue != nil)
            #expect(friends["data"]?.arrayValue != nil)
            #expect(await granting.calls == [["user_friends"]])
            #expect(AccessToken.current?.hasGranted(.userFriends) == true)
        }
    }
}

/// The Login module's role in tests: re-runs the dialog with `auth_type=rerequest`.
actor GraphReLoginAttempter: GraphErrorRecoveryAttempting {
    let server: LiveServer
    let grant: Bool
    var calls: [[String]] = []

    init(server: LiveServer, grant: Bool) {
        self.server = server
        self.grant = grant
    }

    func attemptRecovery(from error: GraphAPIError, permissions: [String]) async -> Bool {
        calls.append(permissions)
        guard
            let token = try? await GraphTestSupport.logIn(
                server, scope: permissions.joined(separator: ","),
                extra: [("auth_type", "rerequest")], choice: .init(only: grant ? permissions : [])),
            permissions.allSatisfy({ token.hasGranted(Permission($0)) })
        else { return false }
        AccessToken.current = token
        return true
    }
}

/// Collects `.AccessTokenDidChange` posts.
final class GraphNotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Notification] = []
    private var observer: (any NSObjectProtocol)?
    private let center: NotificationCenter

    init(_ environment: GatehouseKitEnvironment) {
        self.center = environment.notificationCenter
        observer = center.addObserver(forName: .AccessTokenDidChange, object: environment, queue: nil) {
            [weak self] note in
            self?.lock.withLock { self?.items.append(note) }
        }
    }

    var notifications: [Notification] { lock.withLock { items } }

    deinit { observer.map(center.removeObserver) }
}
