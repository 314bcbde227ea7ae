import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// Publish permissions end to end: `Session.requestNewPublishPermissions` and `LoginManager` against a real
/// `gatehouse serve`, with `DialogPlayer` answering the dialog's two steps.
@Suite(.tags(.process)) struct LivePublishPermissionTests {
    typealias Rig = LiveLoginRig

    @Test func sessionGainsPublishActionsWithTheAudienceAndPosts() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let session = try await rig.openSession()
        try await session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .onlyMe)
        #expect(session.state == .openTokenExtended)
        #expect(session.permissions == ["email", "public_profile", "publish_actions"])
        let dialog = LoginTest.query(try #require(rig.presenter.dialogURLs.last))
        #expect(dialog["default_audience"] == "only_me")
        #expect(dialog["scope"] == "openid,publish_actions")
        let token = try #require(session.accessToken)
        #expect(try await rig.debug(token.tokenString)["data"]?["metadata"]?["default_audience"] == "only_me")

        let created = try await rig.graph(
            "POST", "me/feed", ["message": "Posted from GatehouseKit"], token: token.tokenString)
        let id = try #require(created["id"]?.stringValue)
        #expect(id.hasPrefix(token.userID + "_"))
        let read = try await rig.graph("GET", id, ["fields": "message,privacy{value}"], token: token.tokenString)
        #expect(read["message"] == "Posted from GatehouseKit")
        #expect(read["privacy"]?["value"] == "SELF")
    }

    @Test func theAudiencePickedInTheDialogWins() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let session = try await rig.openSession()
        rig.presenter.audience = "everyone"
        try await session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .friends)
        let token = try #require(session.accessToken)
        #expect(try await rig.debug(token.tokenString)["data"]?["metadata"]?["default_audience"] == "everyone")
    }

    @Test func refusingLeavesTheSessionAsItWas() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let session = try await rig.openSession()
        let before = try #require(session.accessToken)
        rig.presenter.skipPublish = true
        try await session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .friends)
        #expect(session.state == .open)
        #expect(session.permissions == ["email", "public_profile"])
        #expect(session.accessToken?.userID == before.userID)
        // Posting is refused with the seeds' error.
        let token = try #require(session.accessToken)
        let refused = try await rig.graph("POST", "me/feed", ["message": "nope"], token: token.tokenString)
        #expect(refused["error"]?["message"] == "(#200) Requires extended permission: publish_actions")
        #expect(refused["error"]?["code"] == 200)

        // Asking again after a refusal goes out with auth_type=rerequest, and can be granted.
        rig.presenter.skipPublish = false
        try await session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .friends)
        #expect(LoginTest.query(try #require(rig.presenter.dialogURLs.last))["auth_type"] == "rerequest")
        #expect(session.permissions.contains("publish_actions"))
        #expect(session.state == .openTokenExtended)
    }

    @Test func readAndPublishPermissionsAreAskedApart() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let session = try await rig.openSession()
        let shown = rig.presenter.dialogURLs.count
        await #expect(throws: SessionError.publishPermissionsInReadRequest) {
            try await session.requestNewReadPermissions(["user_friends", "publish_actions"])
        }
        await #expect(throws: SessionError.readPermissionsInPublishRequest) {
            try await session.requestNewPublishPermissions(["publish_actions", "email"], defaultAudience: .friends)
        }
        #expect(rig.presenter.dialogURLs.count == shown)
        #expect(session.state == .open)
        // A session's own (read) permissions may not hold publish ones either.
        let mixed = Session(
            permissions: ["public_profile", "publish_actions"], environment: rig.environment, loginProvider: rig.manager
        )
        await #expect(throws: SessionError.publishPermissionsInReadRequest) { try await mixed.open() }

        await #expect(
            throws: CoreError(.invalidArgument, message: SessionError.publishPermissionsInReadRequest.description)
        ) {
            _ = try await rig.manager.logIn(readPermissions: ["email", "publish_actions"])
        }
        await #expect(
            throws: CoreError(.invalidArgument, message: SessionError.readPermissionsInPublishRequest.description)
        ) {
            _ = try await rig.manager.logIn(publishPermissions: ["publish_actions", "email"])
        }
        #expect(rig.presenter.dialogURLs.count == shown)
    }

    @Test func loginManagerAsksWithItsDefaultAudience() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        _ = try await rig.manager.logIn(readPermissions: ["email"])
        rig.manager.defaultAudience = .everyone
        let result = try await rig.manager.logIn(publishPermissions: ["publish_actions"])
        #expect(result.grantedPermissions == ["publish_actions"])
        #expect(LoginTest.query(try #require(rig.presenter.dialogURLs.last))["default_audience"] == "everyone")
        let token = try #require(rig.environment.currentAccessToken)
        #expect(token.permissions == [.publicProfile, .email, .publishActions])
        #expect(try await rig.debug(token.tokenString)["data"]?["metadata"]?["default_audience"] == "everyone")
    }

    @Test func oneLoginMayAskForBothAndGetsBothSteps() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.audience = "only_me"
        let result = try await rig.manager.logIn(permissions: ["email", "publish_actions"])
        #expect(result.grantedPermissions == ["public_profile", "email", "publish_actions"])
        let token = try #require(result.token)
        #expect(try await rig.debug(token.tokenString)["data"]?["metadata"]?["default_audience"] == "only_me")
    }
}

/// What the publish tests do with the rig.
private extension LiveLoginRig {
    /// An open session for Alice with `email`.
    func openSession() async throws -> Session {
        let session = Session(
            permissions: ["public_profile", "email"], environment: environment, loginProvider: manager)
        try await session.open()
        return session
    }

    func graph(_ method: String, _ path: String, _ parameters: [String: String], token: String) async throws
        -> JSONValue
    {
        try await GraphTransport(environment: environment).send(
            method: method, path: path, parameters: parameters, tokenString: token
        ).json ?? .null
    }

    /// `debug_token` for `token`, asked with the app's own credentials.
    func debug(_ token: String) async throws -> JSONValue {
        try await graph("GET", "debug_token", ["input_token": token], token: "\(server.appID)|\(server.appSecret)")
    }
}
