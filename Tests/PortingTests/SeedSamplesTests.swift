import Foundation
import GatehouseKit
import GatehouseTesting
import Testing

/// The seeds' own samples (seeds 000/001/002), ported with the edits docs/PORTING.md lists, run against fake
/// dialogs or an emulated server.
@Suite struct SeedSamplesTests {
    /// `MyTokenCachingStrategy` writing its plist into a test directory instead of ~/Documents: the sample's
    /// `filePath` is overridden here, so the sample itself keeps the seed's path code.
    final class TemporaryTokenCachingStrategy: MyTokenCachingStrategy, @unchecked Sendable {
        let directory: String
        init(directory: String) {
            self.directory = directory
            super.init()
        }
        override func filePath() -> String { (directory as NSString).appendingPathComponent(kFilename) }
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("porting-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func tokenCachingStrategyCachesFetchesAndClearsThroughItsHooks() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // First launch: the person logs in; the SDK stores the token through cacheFBAccessTokenData:.
        let environment = PortingFixtures.environment(cache: TemporaryTokenCachingStrategy(directory: directory))
        let dialog = AnsweringDialog(
            appID: PortingFixtures.appID,
            answer: .grant(userID: "55", granted: ["public_profile", "email"], declined: []))
        _ = try await LoginManager(defaultAudience: .friends, presenter: dialog, environment: environment).logIn(
            permissions: ["public_profile", "email"])
        let file = (directory as NSString).appendingPathComponent("TokenInfo.plist")
        let written = try #require(NSDictionary(contentsOf: URL(fileURLWithPath: file)) as? [String: Any])
        #expect(written["com.facebook.sdk:TokenInformationTokenKey"] as? String == "EAA-ported")
        #expect(written["com.facebook.sdk:TokenInformationUserFBIDKey"] as? String == "55")
        #expect(written["com.facebook.sdk:TokenInformationPermissionsKey"] as? [String] == ["email", "public_profile"])
        #expect(written["com.facebook.sdk:TokenInformationExpirationDateKey"] is Date)

        // Relaunch: Step 1b's openSessionWithAllowLoginUI:NO finds the token through fetchFBAccessTokenData.
        try await GatehouseKitEnvironment.$taskOverride.withValue(PortingFixtures.environment()) {
            let appDelegate = TokenCacheAppDelegate()
            appDelegate.tokenCaching = TemporaryTokenCachingStrategy(directory: directory)
            #expect(appDelegate.openSessionWithAllowLoginUI(false))
            let session = try #require(appDelegate.lastSession)
            #expect(session.accessToken?.userID == "55")
            #expect(session.accessToken?.tokenString == "EAA-ported")

            // Log out: closeAndClearTokenInformation reaches clearToken, which empties the plist.
            session.closeAndClearTokenInformation()
            #expect(appDelegate.tokenCaching?.readData()?.isEmpty == true)
            #expect(appDelegate.tokenCaching?.fetchFBAccessTokenData() == nil)
            let relaunched = TokenCacheAppDelegate()
            relaunched.tokenCaching = TemporaryTokenCachingStrategy(directory: directory)
            #expect(relaunched.openSessionWithAllowLoginUI(false) == false)
        }
    }

    @Test func errorSamplesReadTheThreeXKeysOfAServerError() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let environment = gatehouse.kitEnvironment()
        let login = try await gatehouse.logIn(gatehouse.users[0], permissions: ["email"])
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            AccessToken.current = AccessToken(
                tokenString: login.accessToken, permissions: login.grantedPermissions, declinedPermissions: [],
                expiredPermissions: [],
                appID: gatehouse.app.id, userID: login.userID, expirationDate: login.expiresAt, refreshDate: nil,
                dataAccessExpirationDate: nil)
        }
        // Publishing without publish_actions: the seeds' "missing permission" userInfo.
        let error = try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(any Error)?, any Error>) in
                GraphRequest(graphPath: "me/feed", parameters: ["message": "hello"], httpMethod: .post).start {
                    _, _, error in
                    continuation.resume(returning: error)
                }
            }
        }
        let nsError = try #require(error) as NSError
        #expect(nsError.userInfo["com.facebook.sdk:HTTPStatusCode"] as? Int == 403)
        let parsed = try #require(nsError.userInfo["com.facebook.sdk:ParsedJSONResponseKey"] as? [String: Any])
        #expect(parsed["code"] as? Int == 403)
        let body = try #require((parsed["body"] as? [String: Any])?["error"] as? [String: Any])
        #expect(body["message"] as? String == "(#200) Requires extended permission: publish_actions")
        #expect(body["code"] as? Int == 200)
        #expect(FBErrorUtility.errorCategoryForError(error!) == .permissions)

        let sample = ErrorUtilitySample()
        await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            let session = Session(environment: environment)
            sample.sessionStateChanged(session, state: .open, error: error)
        }
        #expect(
            sample.alerts == [
                SampleAlert(
                    title: "Something went wrong",
                    message:
                        "Please retry. \n\n If the problem persists contact us and mention this error code: (#200) "
                        + "Requires extended permission: publish_actions"
                )
            ])
        #expect(sample.loggedOut == 1)
        #expect(environment.tokenCache?.accessToken == nil)

        // loginView:handleError: with the same error: the generic branch.
        let model = LoginButtonModel(environment: environment)
        sample.loginView(model, handleError: error!)
        #expect(sample.alerts.last == SampleAlert(title: "Something went wrong", message: "Please try again later."))
        try await gatehouse.stop()
    }

    @Test func loginViewErrorSampleSurfacesThePasswordChangeAndIgnoresACancel() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let environment = gatehouse.kitEnvironment()
        let login = try await gatehouse.logIn(gatehouse.users[1])
        try await gatehouse.injectError("password-changed", for: gatehouse.users[1])
        let error = try await GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(any Error)?, any Error>) in
                GraphRequest(
                    graphPath: "me", parameters: ["fields": "id"], tokenString: login.accessToken, version: nil,
                    httpMethod: .get
                )
                .start { _, _, error in continuation.resume(returning: error) }
            }
        }
        let sample = ErrorUtilitySample()
        let model = LoginButtonModel(environment: environment)
        sample.loginView(model, handleError: try #require(error))
        #expect(FBErrorUtility.errorCategoryForError(error!) == .authenticationReopenSession)
        #expect(
            sample.alerts == [SampleAlert(title: "Facebook error", message: FBErrorUtility.userMessageForError(error!))]
        )
        #expect(sample.alerts.first?.message?.isEmpty == false)

        sample.loginView(model, handleError: LoginError(.unknown) as any Error)
        sample.loginView(model, handleError: CancellationError())
        #expect(sample.log.last == "user cancelled login")
        try await gatehouse.stop()
    }
}
