import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// The button model driving a real `LoginManager` against the live server.
@Suite(.tags(.process)) struct LiveLoginButtonTests {
    @Test func logInLoadNameAndLogOut() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let manager = LoginManager(
            presenter: DialogPlayerPresenter(server: server, user: server.users[0]), environment: environment)
        let model = LoginButtonModel(loginProvider: manager, environment: environment)
        let delegate = RecordingButtonDelegate()
        model.delegate = delegate
        model.permissions = ["email"]
        await model.tap()
        #expect(delegate.events.values == ["will", "complete cancelled=false"])
        #expect(delegate.lastResult?.token == environment.currentAccessToken)
        #expect(model.title == "Log out")

        try await model.loadUserName()
        #expect(model.userName == server.users[0].name)
        #expect(model.logOutConfirmation().title == "Logged in as \(server.users[0].name)")

        // FBLoginButton's press loads the name itself before it asks.
        model.userName = nil
        let asked = LoginRecorder<String>()
        model.confirmLogOut = { confirmation in
            asked.record(confirmation.title)
            return true
        }
        await model.press()
        #expect(asked.values == ["Logged in as \(server.users[0].name)"])
        #expect(delegate.events.values.last == "logout")
        #expect(environment.currentAccessToken == nil)
        #expect(model.title == "Continue with Facebook")
    }
}
