import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Item 5: the seeds' `FBLoginView` behaviour on the button model.
@Suite struct LoginViewBehaviorTests {
    @Test func showingCallsFollowChangesMadeAnywhere() async {
        let (model, _, environment) = LoginButtonModelTests.model()
        let recorder = LoginViewRecorder()
        model.delegate = recorder
        #expect(recorder.events.values == ["showing out"])
        // A login made outside the button (another LoginManager, a Session).
        environment.setCurrentAccessToken(LoginTest.token())
        #expect(recorder.events.values == ["showing out", "showing in"])
        // A refresh of the same login shows nothing new.
        environment.setCurrentAccessToken(LoginTest.token(tokenString: "EAA-refreshed"))
        #expect(recorder.events.values == ["showing out", "showing in"])
        environment.setCurrentAccessToken(nil)
        #expect(recorder.events.values == ["showing out", "showing in", "showing out"])
    }

    @Test func readAndPublishPermissionsAreKeptApart() async throws {
        let (model, provider, _) = LoginButtonModelTests.model()
        let recorder = LoginViewRecorder()
        model.delegate = recorder
        model.permissions = ["email"]
        model.readPermissions = ["public_profile", "user_friends"]
        await model.tap()
        #expect(provider.configurations.last?.requestedPermissions == [.publicProfile, .userFriends])
        model.publishPermissions = ["publish_actions"]
        await model.tap()
        #expect(provider.configurations.last?.requestedPermissions == [.publishActions])
        // A publish permission among the read ones is refused before any dialog, as the seeds' view refused it.
        model.publishPermissions = []
        model.readPermissions = ["email", "publish_actions"]
        await model.tap()
        #expect(provider.configurations.count == 2)
        #expect(recorder.events.values.last?.hasPrefix("error CoreError 2") == true)
        model.readPermissions = []
        model.publishPermissions = ["email"]
        await model.tap()
        #expect(provider.configurations.count == 2)
    }
}
