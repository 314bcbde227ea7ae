import Foundation
import GatehouseKit
import GatehouseTesting
import Testing

/// The seeds' samples that depend on what Facebook's server answered at their versions, run against an emulator.
@Suite struct SeedServerSamplesTests {
    /// Runs the revoke sample as `person` at `version` and returns the alert it would show.
    static func revoke(_ gatehouse: GatehouseEmulator, person: TestUser, version: String) async throws -> SampleAlert {
        let login = try await gatehouse.logIn(person, permissions: ["publish_actions"])
        let environment = gatehouse.kitEnvironment()
        environment.settings.graphAPIVersion = version
        return await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            AccessToken.current = AccessToken(
                tokenString: login.accessToken, permissions: login.grantedPermissions, declinedPermissions: [],
                expiredPermissions: [],
                appID: gatehouse.app.id, userID: login.userID, expirationDate: login.expiresAt, refreshDate: nil,
                dataAccessExpirationDate: nil)
            return await withCheckedContinuation { continuation in
                RevokePermissionSample.revokePublishActions { continuation.resume(returning: $0) }
            }
        }
    }

    @Test func revokeSampleSeesTrueAtTheSeedsVersionsAndNotToday() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        // v2.0 (SDK 3.14-3.24's default) answered a bare `true`: the seed's check passes.
        #expect(
            try await Self.revoke(gatehouse, person: gatehouse.users[0], version: "v2.0")
                == SampleAlert(
                    title: "Permission successfully revoked",
                    message: "This app will no longer post to Facebook on your behalf."))
        // From v2.1 the answer is {"success":true}: the permission is gone, but the seed's `result == true` fails.
        #expect(
            try await Self.revoke(gatehouse, person: gatehouse.users[1], version: "v27.0")
                == SampleAlert(title: nil, message: nil))
        let environment = gatehouse.kitEnvironment()
        let login = try await gatehouse.logIn(gatehouse.users[2], permissions: ["publish_actions"])
        let result = try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await GraphRequest(
                graphPath: "/me/permissions/publish_actions", parameters: [:], tokenString: login.accessToken,
                version: "v27.0", httpMethod: .delete
            ).start()
        }
        #expect(result as? [String: Bool] == ["success": true])
        try await gatehouse.stop()
    }

    @Test func seed002PermissionsAreGrantedAtV23AndRefusedFromV24() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let person = gatehouse.users[0]
        for (version, granted) in [("v2.3", true), ("v2.4", false), ("v27.0", false)] {
            let environment = gatehouse.kitEnvironment()
            environment.settings.graphAPIVersion = version
            let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: person)
            let manager = LoginManager(defaultAudience: .friends, presenter: presenter, environment: environment)
            let (result, error) = await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
                await withCheckedContinuation {
                    (continuation: CheckedContinuation<(LoginManagerLoginResult?, (any Error)?), Never>) in
                    ExtendedPermissionsSample.authorize(loginManager: manager) {
                        continuation.resume(returning: ($0, $1))
                    }
                }
            }
            #expect(presenter.dialogURLs.first?.path == "/\(version)/dialog/oauth")
            if granted {
                #expect(error == nil)
                #expect(
                    result?.grantedPermissions == [
                        "public_profile", "user_likes", "user_birthday", "user_interests", "read_stream",
                    ] as Set)
            } else {
                #expect(result == nil)
                // The dialog showed Facebook's "Invalid Scopes" page instead of a login.
                #expect("\(String(describing: error))".contains("HTTP 400"))
            }
        }
        try await gatehouse.stop()
    }

    @Test func requestsDialogSampleSendsItsNotificationText() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let sender = gatehouse.users[0]
        let sample = RequestsDialogSample()
        let presenter = RequestsDialogPresenter(appID: gatehouse.app.id, email: sender.email, password: sender.password)
        sample.sendNotificationRequest(presenter: presenter, environment: gatehouse.kitEnvironment())
        #expect(await PortingFixtures.eventually { !sample.completed.isEmpty || !sample.failures.isEmpty })
        #expect(sample.failures.isEmpty)
        let results = try #require(sample.completed.first)
        let requestID = try #require(results.requestID)
        #expect(results.recipients.count == 2)

        // A recipient sees it with its text in their requests, and deletes it once acted on.
        let recipient = gatehouse.users[1]
        let login = try await gatehouse.logIn(recipient)
        let environment = gatehouse.kitEnvironment()
        let list = try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await GraphRequest(
                graphPath: "me/apprequests", parameters: [:], tokenString: login.accessToken, version: nil,
                httpMethod: .get
            ).start()
        }
        let data = try #require((list as? [String: Any])?["data"] as? [[String: Any]])
        #expect(data.count == 1)
        #expect(data.first?["id"] as? String == "\(requestID)_\(login.userID)")
        #expect(data.first?["message"] as? String == "invites you to check out some great stuff.")
        #expect(data.first?["notification_text"] as? String == "Check this out")
        let deleted = try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await GraphRequest(
                graphPath: "\(requestID)_\(login.userID)", parameters: [:], tokenString: login.accessToken,
                version: nil, httpMethod: .delete
            ).start()
        }
        #expect(deleted as? [String: Bool] == ["success": true])
        try await gatehouse.stop()
    }
}
