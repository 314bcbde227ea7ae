import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// ``LoginButtonModel/press()``, all that `FBLoginButton` does on a tap. The test settings' server
/// (127.0.0.1:9) refuses connections, so loading the name fails; the live suite covers a name that loads.
@Suite struct LoginButtonPressTests {
    @Test func aPressWhenLoggedInStillConfirmsWhenTheNameCannotLoad() async {
        let (model, provider, environment) = LoginButtonModelTests.model()
        environment.setCurrentAccessToken(LoginTest.token())
        let asked = LoginRecorder<String>()
        model.confirmLogOut = { confirmation in
            asked.record(confirmation.title)
            return true
        }
        await model.press()
        #expect(asked.values == ["Logged in using Facebook"])
        #expect(provider.logOuts == 1)
        #expect(!model.isLoggedIn)
    }

    @Test func aPressWhenLoggedOutLogsIn() async {
        let token = LoginTest.token(permissions: ["public_profile", "email"])
        let (model, provider, _) = LoginButtonModelTests.model(.success(granted: [.email], declined: [], token: token))
        let delegate = RecordingButtonDelegate()
        model.delegate = delegate
        await model.press()
        #expect(delegate.events.values == ["will", "complete cancelled=false"])
        #expect(provider.configurations.count == 1)
        #expect(model.isLoggedIn)
    }
}
