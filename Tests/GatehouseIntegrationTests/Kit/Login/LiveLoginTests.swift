import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// `LoginManager` against a real `gatehouse serve`, with `DialogPlayer` as the person.
@Suite(.tags(.process)) struct LiveLoginTests {
    typealias Rig = LiveLoginRig

    @Test func grantingEverythingLogsInAndStoresTheToken() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let result = try await rig.manager.logIn(permissions: ["email", "user_friends"])
        #expect(!result.isCancelled)
        #expect(result.grantedPermissions == ["public_profile", "email", "user_friends"])
        #expect(result.declinedPermissions.isEmpty)
        let token = try #require(result.token)
        #expect(rig.environment.currentAccessToken == token)
        #expect(token.appID == rig.server.appID)
        #expect(token.permissions == [.publicProfile, .email, .userFriends])
        #expect(token.declinedPermissions.isEmpty)
        #expect(try await LiveLogin.meID(token, environment: rig.environment) == token.userID)
        let lifetime = token.expirationDate.timeIntervalSince(token.refreshDate)
        #expect(lifetime > 3000 && lifetime <= 7200)
        #expect(token.dataAccessExpirationDate < .distantFuture)
        let callback = try #require(rig.presenter.callbacks.first)
        #expect(callback.absoluteString.hasPrefix("fb\(rig.server.appID)://authorize/#"))
    }

    @Test func decliningOnePermissionReportsIt() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.choice = .init(only: ["public_profile", "email"])
        let result = try await rig.manager.logIn(permissions: ["email", "user_friends"])
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(result.declinedPermissions == ["user_friends"])
        let token = try #require(rig.environment.currentAccessToken)
        #expect(token.permissions == [.publicProfile, .email])
        #expect(token.declinedPermissions == [.userFriends])
    }

    @Test func cancellingInTheDialogIsCancelled() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.choice = .init(cancel: true)
        guard case .cancelled = await rig.manager.logIn(configuration: LoginConfiguration(permissions: [.email])!)
        else {
            Issue.record("expected cancelled"); return
        }
        #expect(rig.environment.currentAccessToken == nil)
        #expect(rig.presenter.callbacks.first?.fragment?.contains("error=access_denied") == true)
    }

    @Test func declinedPermissionIsAskedAgainOnlyWithRerequest() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.choice = .init(only: ["public_profile", "email"])
        _ = try await rig.manager.logIn(permissions: ["email", "user_friends"])

        // Without rerequest the dialog does not ask again and reports the permission declined.
        let noRerequest = try #require(LoginConfiguration(permissions: [.userFriends], authType: nil))
        guard case .success(let granted, let declined, let token) = await rig.manager.logIn(configuration: noRerequest)
        else {
            Issue.record("expected success"); return
        }
        #expect(granted.isEmpty)
        #expect(declined == [.userFriends])
        #expect(token?.permissions == [.publicProfile, .email])

        rig.presenter.choice = .init()
        let rerequest = try #require(LoginConfiguration(permissions: [.userFriends], authType: .rerequest))
        guard
            case .success(let regranted, let redeclined, let retoken) = await rig.manager.logIn(
                configuration: rerequest)
        else {
            Issue.record("expected success"); return
        }
        #expect(regranted == [.userFriends])
        #expect(redeclined.isEmpty)
        #expect(retoken?.permissions == [.publicProfile, .email, .userFriends])
        #expect(rig.environment.currentAccessToken == retoken)
        #expect(rig.presenter.dialogURLs.map { LoginTest.query($0)["auth_type"] } == ["rerequest", nil, "rerequest"])
    }

    @Test func codeFlowRedeemsTheCodeWithPKCE() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.responseType = LiveLogin.codeResponseType
        let result = try await rig.manager.logIn(permissions: ["email"])
        let callback = try #require(rig.presenter.callbacks.first)
        #expect(LoginTest.query(callback)["code"] != nil)
        #expect(LoginTest.query(callback)["access_token"] == nil)
        let dialog = LoginTest.query(try #require(rig.presenter.dialogURLs.first))
        #expect(dialog["code_challenge_method"] == "S256")
        #expect(dialog["code_challenge"]?.count == 43)
        let token = try #require(result.token)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(try await LiveLogin.meID(token, environment: rig.environment) == token.userID)
        #expect(rig.environment.currentAccessToken == token)
    }

    @Test func anotherPersonThanTheCurrentTokensIsRefused() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let alice = try #require(try await rig.manager.logIn(permissions: ["email"]).token)
        // Alice logging in again is fine.
        let again = try await rig.manager.logIn(permissions: ["email"])
        #expect(again.token?.userID == alice.userID)
        let aliceNow = try #require(rig.environment.currentAccessToken)

        rig.presenter.user = rig.server.users[1]
        do {
            _ = try await rig.manager.logIn(permissions: ["email"])
            Issue.record("Bob's login must be refused while Alice's token is current")
        } catch let error as LoginError {
            #expect(error.code == .userMismatch)
            #expect(error.code.rawValue == 304)
        }
        #expect(rig.environment.currentAccessToken == aliceNow)
    }

    @Test func logOutThenAnotherPersonMayLogIn() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let alice = try #require(try await rig.manager.logIn(permissions: []).token)
        rig.manager.logOut()
        #expect(rig.environment.currentAccessToken == nil)
        rig.presenter.user = rig.server.users[1]
        let bob = try #require(try await rig.manager.logIn(permissions: []).token)
        #expect(bob.userID != alice.userID)
        #expect(try await LiveLogin.meID(bob, environment: rig.environment) == bob.userID)
    }
}

/// The URL-scheme presenter against the live server: the app is opened with the callback.
@Suite(.serialized, .tags(.process)) struct LiveURLSchemeLoginTests {
    @Test func openedCallbackThroughTheSharedApplicationDelegateFinishesTheLogin() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let alice = server.users[0]
        let browser = DialogPlayer()
        let presenter = URLSchemeLoginPresenter(environment: environment, applicationDelegate: .shared) { url in
            // The browser finishes the dialog; the system then opens the app with the redirect.
            guard let redirect = try? await browser.complete(url, email: alice.email, password: alice.password) else {
                return false
            }
            Task { ApplicationDelegate.shared.handleOpen(url: redirect) }
            return true
        }
        let manager = LoginManager(presenter: presenter, environment: environment)
        let result = try await manager.logIn(permissions: ["email"])
        let token = try #require(result.token)
        #expect(environment.currentAccessToken == token)
        #expect(try await LiveLogin.meID(token, environment: environment) == token.userID)
        #expect(!ApplicationDelegate.shared.isLoginPending)
    }

    @Test func returningToTheAppWithoutACallbackCancels() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let delegate = ApplicationDelegate()
        let opened = LoginRecorder<URL>()
        let presenter = URLSchemeLoginPresenter(environment: environment, applicationDelegate: delegate) { url in
            // The person looks at the dialog and switches back to the app without finishing.
            let page = try? await DialogPlayer().get(url)
            if page?.status == 200 { opened.record(url) }
            return true
        }
        let manager = LoginManager(presenter: presenter, environment: environment)
        let task = Task { await manager.logIn(configuration: LoginConfiguration(permissions: [.email])!) }
        await opened.waitFor(1)
        let deadline = ContinuousClock.now + .seconds(600)
        while delegate.isLoginPending && ContinuousClock.now < deadline {
            delegate.handleDidBecomeActive()
            try await Task.sleep(for: .milliseconds(10))
        }
        guard case .cancelled = await task.value else { Issue.record("expected cancelled"); return }
        #expect(environment.currentAccessToken == nil)
    }
}
