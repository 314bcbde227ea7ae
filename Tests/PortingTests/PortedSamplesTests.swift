import Foundation
import GatehouseKit
import Testing

/// The ported samples run against fake dialogs and an in-memory backend: the code compiled from
/// Facebook-SDK sources with only the import changed behaves as the originals describe.
@Suite struct PortedSamplesTests {
    @Test func customLoginSampleLogsInAndReportsThePermissions() async throws {
        let environment = PortingFixtures.environment()
        let dialog = AnsweringDialog(
            appID: PortingFixtures.appID,
            answer: .grant(userID: "77", granted: ["public_profile", "email"], declined: []))
        let flow = CustomLoginFlow(
            loginManager: LoginManager(defaultAudience: .friends, presenter: dialog, environment: environment))
        let outcomes = Box<CustomLoginOutcome>()
        flow.loginButtonClicked(viewController: nil) { outcomes.add($0) }
        #expect(await PortingFixtures.eventually { !outcomes.values.isEmpty })
        #expect(outcomes.values == [.loggedIn(userID: "77", granted: ["email", "public_profile"], declined: [])])
        #expect(environment.tokenCache?.accessToken?.userID == "77")
        flow.logOut()
        #expect(environment.tokenCache?.accessToken == nil)
    }

    @Test func customLoginSampleSeesACancel() async throws {
        let environment = PortingFixtures.environment()
        let flow = CustomLoginFlow(
            loginManager: LoginManager(
                defaultAudience: .friends, presenter: AnsweringDialog(appID: PortingFixtures.appID, answer: .cancel),
                environment: environment))
        let outcomes = Box<CustomLoginOutcome>()
        flow.loginButtonClicked(viewController: nil) { outcomes.add($0) }
        #expect(await PortingFixtures.eventually { !outcomes.values.isEmpty })
        #expect(outcomes.values == [.cancelled])
    }

    @Test func loginButtonSampleHearsTheLoginAndTheLogOut() async throws {
        let environment = PortingFixtures.environment()
        let dialog = AnsweringDialog(
            appID: PortingFixtures.appID, answer: .grant(userID: "88", granted: ["public_profile"], declined: []))
        let model = LoginButtonModel(
            loginProvider: LoginManager(defaultAudience: .friends, presenter: dialog, environment: environment),
            environment: environment)
        let status = LoginButtonStatus()
        model.delegate = status
        model.permissions = ["public_profile"]
        await model.tap()
        #expect(status.status == "logged in as 88")
        await model.tap()
        #expect(status.status == "logged out")
    }

    @Test func sessionStateHandlerSampleReadsErrorsAsTheSeedsDid() async throws {
        let environment = PortingFixtures.environment()
        let cancelled = Box<SessionStateReport>()
        let session = Session(
            permissions: ["public_profile"], environment: environment,
            loginProvider: LoginManager(
                defaultAudience: .friends, presenter: AnsweringDialog(appID: PortingFixtures.appID, answer: .cancel),
                environment: environment))
        session.open(allowLoginUI: true) { session, state, error in
            cancelled.add(SessionStateSample.sessionStateChanged(session, state: state, error: error))
        }
        #expect(await PortingFixtures.eventually { cancelled.values.count == 2 })
        // The cancel is user-cancelled: no alert, as the seeds' handler shows none.
        #expect(cancelled.values.last == SessionStateReport(loggedIn: false))

        let opened = Box<SessionStateReport>()
        let grants = Session(
            permissions: ["public_profile"], environment: environment,
            loginProvider: LoginManager(
                defaultAudience: .friends,
                presenter: AnsweringDialog(
                    appID: PortingFixtures.appID, answer: .grant(userID: "9", granted: ["public_profile"], declined: [])
                ),
                environment: environment))
        grants.open(allowLoginUI: true) { session, state, error in
            opened.add(SessionStateSample.sessionStateChanged(session, state: state, error: error))
        }
        #expect(await PortingFixtures.eventually { opened.values.last?.loggedIn == true })
    }

    @Test func remoteCacheSampleKeepsTokenAndExtraDataOnTheBackend() async throws {
        let backend = FakeTokenBackend()
        let strategy = RemoteTokenCachingStrategy(backend: backend, appUserID: "app-user-1")
        strategy.tokenInformation = ["appUser": "app-user-1"]
        let environment = PortingFixtures.environment(cache: strategy)
        let dialog = AnsweringDialog(
            appID: PortingFixtures.appID, answer: .grant(userID: "55", granted: ["public_profile"], declined: []))
        _ = try await LoginManager(defaultAudience: .friends, presenter: dialog, environment: environment).logIn(
            permissions: ["public_profile"])
        // A second device with the same backend and app user opens its session from the cached token.
        let other = PortingFixtures.environment(
            cache: RemoteTokenCachingStrategy(backend: backend, appUserID: "app-user-1"))
        let session = Session(permissions: ["public_profile"], environment: other)
        #expect(session.state == .createdTokenLoaded)
        #expect(session.accessToken?.userID == "55")
        #expect(
            RemoteTokenCachingStrategy(backend: backend, appUserID: "app-user-1").tokenInformation == [
                "appUser": "app-user-1"
            ])
    }

    @Test func limitedLoginSampleConfigurationValidatesAsFacebooks() {
        #expect(LimitedLoginSample.configuration(nonce: "abc-123")?.tracking == .limited)
        #expect(LimitedLoginSample.configuration(nonce: "has space") == nil)
        #expect(LimitedLoginSample.configuration(nonce: "") == nil)
    }

    @Test func errorsReadThroughNSErrorAsInFacebooksSamples() {
        let error: any Error = LoginError(.userMismatch)
        let nsError = error as NSError
        #expect(nsError.domain == LoginError.domain)
        #expect(nsError.code == LoginError.Code.userMismatch.rawValue)
        #expect(GraphRequestError(rawValue: 2) == .recoverable)
    }
}
