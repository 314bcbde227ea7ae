import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// `LoginManager` with a scripted presenter and a fake Graph client: entry points, state rule, storage.
@Suite struct LoginManagerTests {
    static let grant: [(String, String)] = [
        ("access_token", "EAAfresh"), ("expires_in", "3600"), ("granted_scopes", "public_profile,email"),
        ("denied_scopes", "user_friends"), ("signed_request", LoginTest.signedRequest(userID: "500")),
    ]

    static func manager(
        _ presenter: ScriptedLoginPresenter, environment: GatehouseKitEnvironment = LoginTest.environment(),
        graph: FakeLoginGraph = FakeLoginGraph(["me": (200, ["id": "500"])])
    ) -> LoginManager {
        LoginManager(defaultAudience: .friends, presenter: presenter, environment: environment, graphClient: graph)
    }

    static func granting(_ extra: [(String, String)] = []) -> ScriptedLoginPresenter {
        ScriptedLoginPresenter { LoginTest.callback(to: $0, grant + extra) }
    }

    /// Polls until `condition` holds (at most 5 s).
    /// Waits for `condition`; the bound only matters when the test fails, so it allows for a loaded machine.
    static func eventually(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func successStoresTheTokenAndReportsThisRequest() async throws {
        let environment = LoginTest.environment()
        let presenter = Self.granting()
        let result = try await Self.manager(presenter, environment: environment).logIn(permissions: [
            "email", "user_friends",
        ])
        #expect(!result.isCancelled)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(result.declinedPermissions == ["user_friends"])
        let token = try #require(result.token)
        #expect(token.userID == "500")
        #expect(token.appID == LoginTest.appID)
        #expect(token.expirationDate == LoginTest.now.addingTimeInterval(3600))
        #expect(environment.currentAccessToken == token)
        let dialog = LoginTest.query(try #require(presenter.dialogURLs.first))
        #expect(dialog["redirect_uri"] == "fb\(LoginTest.appID)://authorize/")
        #expect(dialog["client_id"] == LoginTest.appID)
        #expect(dialog["scope"] == "email,openid,user_friends")
        #expect(dialog["auth_type"] == "rerequest")
    }

    @Test func checkedLoginWhileStartingIsDroppedSilently() async throws {
        let gate = LoginTestGate()
        let presenter = ScriptedLoginPresenter(prepareGate: gate) { LoginTest.callback(to: $0, Self.grant) }
        let manager = Self.manager(presenter)
        let first = LoginRecorder<Bool>(), second = LoginRecorder<Bool>()
        manager.logIn(permissions: ["email"]) { result, _ in first.record(result?.isCancelled ?? true) }
        await Self.eventually { presenter.prepareCount == 1 }
        // The dropped call must keep nothing that could call its handler later: the handler (which holds
        // `witness`) is released by the time `logIn` returns, and no attempt was recorded for it.
        weak var heldByHandler: HandlerWitness?
        do {
            let witness = HandlerWitness()
            heldByHandler = witness
            manager.logIn(permissions: ["email"]) { _, _ in withExtendedLifetime(witness) { second.record(true) } }
        }
        #expect(heldByHandler == nil)
        #expect(manager.lock.withLock { manager.pending.count } == 1)
        await #expect(throws: LoginError.self) { try await manager.logIn(permissions: ["email"]) }
        gate.open()
        await first.waitFor(1)
        #expect(first.values == [false])
        #expect(manager.lock.withLock { manager.pending.isEmpty })
        #expect(second.values.isEmpty)
        #expect(presenter.prepareCount == 1)
    }

    /// Held by a handler, to see (through a weak reference) whether anything still keeps that handler.
    final class HandlerWitness: Sendable {}

    @Test func loginWhileDialogShowsCancelsTheEarlierOne() async throws {
        let hold = LoginTestGate()
        let presenter = ScriptedLoginPresenter { url in
            if LoginTest.query(url)["scope"] == "email,openid" { await hold.wait() }
            return LoginTest.callback(to: url, Self.grant)
        }
        let manager = Self.manager(presenter)
        let first = LoginRecorder<Bool>()
        manager.logIn(permissions: ["email"]) { result, error in
            first.record(result?.isCancelled == true && error == nil)
        }
        await Self.eventually { presenter.dialogURLs.count == 1 }
        let second = try await manager.logIn(permissions: ["email", "user_friends"])
        await first.waitFor(1)
        #expect(first.values == [true])
        #expect(!second.isCancelled)
        hold.open()
    }

    @Test func swiftEntryCancelsALoginThatIsStillStarting() async {
        let gate = LoginTestGate()
        let presenter = ScriptedLoginPresenter(prepareGate: gate) { LoginTest.callback(to: $0, Self.grant) }
        let manager = Self.manager(presenter)
        let first = LoginRecorder<String>()
        manager.logIn(configuration: LoginConfiguration(permissions: [.email])) { result in first.record("\(result)") }
        await Self.eventually { presenter.prepareCount == 1 }
        let secondTask = Task { await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!) }
        await first.waitFor(1)
        #expect(first.values == ["cancelled"])
        gate.open()
        guard case .success = await secondTask.value else { Issue.record("second login should succeed"); return }
    }

    @Test func nilConfigurationAndBadPermissionsAreCoreError2() async {
        let manager = Self.manager(Self.granting())
        let results = LoginRecorder<String>()
        manager.logIn(configuration: nil) { result in
            if case .failed(let error) = result { results.record("\((error as? CoreError)?.code.rawValue ?? -1)") }
        }
        manager.logIn(permissions: ["Bad.Name"]) { result, error in
            results.record("\((error as? CoreError)?.code.rawValue ?? -1) \(result == nil)")
        }
        manager.logIn(from: nil, configuration: nil) { _, error in
            results.record("\((error as? CoreError)?.code.rawValue ?? -1)")
        }
        await results.waitFor(3)
        #expect(results.values == ["2", "2 true", "2"])
    }

    @Test func missingAppIDFailsBeforeAnyDialog() async {
        let presenter = Self.granting()
        let manager = Self.manager(
            presenter, environment: LoginTest.environment(settings: LoginTest.settings(appID: nil)))
        guard case .failed(let error) = await manager.logIn(configuration: LoginConfiguration()!) else {
            Issue.record("expected failure"); return
        }
        #expect((error as? CoreError)?.code == .invalidArgument)
        #expect(presenter.prepareCount == 0)
    }

    @Test func logOutClearsTokensAndProfile() {
        let environment = LoginTest.environment()
        environment.setCurrentAccessToken(LoginTest.token())
        environment.setCurrentAuthenticationToken(AuthenticationToken(tokenString: "h.p.s", nonce: "n"))
        environment.replaceCurrentProfile(
            Profile(
                userID: "111", firstName: "A", middleName: nil, lastName: "B", name: "A B", linkURL: nil,
                refreshDate: LoginTest.now))
        Self.manager(Self.granting(), environment: environment).logOut()
        #expect(environment.currentAccessToken == nil)
        #expect(environment.currentAuthenticationToken == nil)
        #expect(environment.currentProfile == nil)
    }

    @Test func reauthorizeNeedsACurrentToken() async {
        let errors = LoginRecorder<Int>()
        Self.manager(Self.granting()).reauthorizeDataAccess(from: nil) { _, error in
            errors.record((error as? LoginError)?.code.rawValue ?? -1)
        }
        await errors.waitFor(1)
        #expect(errors.values == [310])
    }

    @Test func reauthorizeAsksForNothingNewWithReauthorize() async throws {
        let environment = LoginTest.environment()
        environment.setCurrentAccessToken(LoginTest.token(userID: "500"))
        let presenter = Self.granting()
        let results = LoginRecorder<LoginManagerLoginResult>()
        Self.manager(presenter, environment: environment).reauthorizeDataAccess(from: nil) { result, _ in
            if let result { results.record(result) }
        }
        await results.waitFor(1)
        let dialog = LoginTest.query(try #require(presenter.dialogURLs.first))
        #expect(dialog["auth_type"] == "reauthorize")
        #expect(dialog["scope"] == "openid")
        #expect(results.values.first?.isCancelled == false)
        #expect(environment.currentAccessToken?.tokenString == "EAAfresh")
    }

    @Test func failedLoginLeavesTokensAlone() async {
        let environment = LoginTest.environment()
        let old = LoginTest.token()
        environment.setCurrentAccessToken(old)
        let presenter = ScriptedLoginPresenter {
            LoginTest.callback(to: $0, [("error", "e"), ("error_message", "Broken")])
        }
        guard
            case .failed = await Self.manager(presenter, environment: environment).logIn(
                configuration: LoginConfiguration()!)
        else {
            Issue.record("expected failure"); return
        }
        #expect(environment.currentAccessToken == old)
    }

    /// A Limited Login's id_token is verified before anything is stored; this one is not even a JWS.
    /// (The successful path, against a live server's keys, is in `AuthenticationTokenVerifierTests`.)
    @Test func limitedLoginWithAnUnverifiableIDTokenFailsWith309AndChangesNothing() async throws {
        let environment = LoginTest.environment()
        let old = LoginTest.token()
        environment.setCurrentAccessToken(old)
        let presenter = ScriptedLoginPresenter {
            LoginTest.callback(to: $0, [("id_token", "h.p.s"), ("granted_scopes", "public_profile,email")])
        }
        let configuration = try #require(LoginConfiguration(permissions: [.email], tracking: .limited, nonce: "n-lim"))
        guard
            case .failed(let error) = await Self.manager(presenter, environment: environment).logIn(
                configuration: configuration)
        else {
            Issue.record("expected failure"); return
        }
        #expect((error as? LoginError)?.code == .invalidIDToken)
        #expect(environment.currentAccessToken == old)
        #expect(environment.currentAuthenticationToken == nil)
        #expect(LoginTest.query(presenter.dialogURLs[0])["response_type"] == "id_token,graph_domain,user_token_nonce")
    }

    @Test func userTokenNonceGoesToTheNextDialogUntilLogOut() async throws {
        let presenter = Self.granting([("user_token_nonce", "utn-1")])
        let manager = Self.manager(presenter)
        _ = try await manager.logIn(permissions: ["email"])
        manager.logOut()
        _ = try await manager.logIn(permissions: ["email"])
        _ = try await manager.logIn(permissions: ["email"])
        #expect(presenter.dialogURLs.map { LoginTest.query($0)["user_token_nonce"] } == [nil, nil, "utn-1"])
    }

    @Test func cancellingTheAwaitingTaskCancelsTheLogin() async throws {
        let hold = LoginTestGate()
        let presenter = ScriptedLoginPresenter { url in
            await hold.wait()
            return LoginTest.callback(to: url, Self.grant)
        }
        let manager = Self.manager(presenter)
        let task = Task { await manager.logIn(configuration: LoginConfiguration()!) }
        await Self.eventually { presenter.dialogURLs.count == 1 }
        task.cancel()
        guard case .cancelled = await task.value else { Issue.record("expected cancelled"); return }
        hold.open()
        // The manager is idle again: a new checked login is not dropped.
        let again = try await manager.logIn(permissions: ["email"])
        #expect(again.isCancelled == false)
    }

    @Test func sessionLoginUsesItsAuthTypeAndAudience() async throws {
        let environment = LoginTest.environment()
        let presenter = Self.granting()
        let provider: any SessionLoginProviding = Self.manager(presenter, environment: environment)
        guard
            case .success(let token) = await provider.logIn(
                permissions: ["email"], authType: nil, defaultAudience: .everyone)
        else {
            Issue.record("expected success"); return
        }
        #expect(token.tokenString == "EAAfresh")
        #expect(environment.currentAccessToken == token)
        let dialog = LoginTest.query(try #require(presenter.dialogURLs.first))
        #expect(dialog["auth_type"] == nil)
        #expect(dialog["default_audience"] == "everyone")

        guard
            case .success = await provider.logIn(
                permissions: ["email"], authType: "rerequest", defaultAudience: .friends)
        else {
            Issue.record("expected success"); return
        }
        #expect(LoginTest.query(presenter.dialogURLs[1])["auth_type"] == "rerequest")
        guard
            case .failed = await provider.logIn(
                permissions: ["email"], authType: "reauthenticate", defaultAudience: .friends)
        else {
            Issue.record("an auth type outside rerequest/reauthorize must fail"); return
        }
    }

    @Test func sessionLoginReportsCancelAndFailure() async {
        let cancelling = ScriptedLoginPresenter { _ in nil }
        guard
            case .cancelled = await Self.manager(cancelling).logIn(
                permissions: ["email"], authType: nil, defaultAudience: .friends)
        else {
            Issue.record("expected cancelled"); return
        }
        let failing = ScriptedLoginPresenter {
            LoginTest.callback(to: $0, [("error", "x"), ("error_message", "Nope")])
        }
        guard
            case .failed(let error) = await Self.manager(failing).logIn(
                permissions: ["email"], authType: nil, defaultAudience: .friends)
        else {
            Issue.record("expected failure"); return
        }
        #expect((error as? GraphAPIError)?.message == "x")
    }

    @Test func defaultAudienceReachesTheDialog() async throws {
        let presenter = Self.granting()
        let manager = Self.manager(presenter)
        manager.defaultAudience = .onlyMe
        _ = try await manager.logIn(permissions: [])
        #expect(LoginTest.query(presenter.dialogURLs[0])["default_audience"] == "only_me")
    }

    @Test func loginResultBridge() {
        guard case .failed(let error) = LoginResult(result: nil, error: nil) else {
            Issue.record("expected failure"); return
        }
        #expect(error as? LoginError == LoginError(.unknown))
        guard case .cancelled = LoginResult(result: .cancelled, error: nil) else {
            Issue.record("expected cancel"); return
        }
        guard case .failed = LoginResult(result: .cancelled, error: CoreError(.network)) else {
            Issue.record("error wins"); return
        }
    }
}
