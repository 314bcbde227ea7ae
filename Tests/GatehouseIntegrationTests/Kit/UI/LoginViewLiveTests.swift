import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTesting
import GatehouseTestSupport
import Testing

extension LiveGraphSerialTests {
    /// `loginViewFetchedUserInfo:user:` with the real server's profile.
    @Suite struct LoginViewLiveTests {
        @Test func fetchesThePublicProfileAfterLogin() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let environment = LiveLogin.environment(server)
            let presenter = DialogPlayerPresenter(server: server, user: server.users[0])
            let manager = LoginManager(defaultAudience: .friends, presenter: presenter, environment: environment)
            let model = LoginButtonModel(loginProvider: manager, environment: environment)
            let recorder = LoginViewRecorder()
            model.delegate = recorder
            model.readPermissions = ["public_profile", "email"]
            await model.tap()
            let token = try #require(environment.currentAccessToken)
            #expect(
                recorder.events.values == [
                    "showing out", "showing in", "complete", "user \(token.userID) \(server.users[0].name)",
                ])
            #expect(environment.currentProfile?.userID == token.userID)
            #expect(environment.currentProfile?.email == server.users[0].email)
            #expect(model.userName == server.users[0].name)
        }
    }
}
