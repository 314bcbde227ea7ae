import Foundation
import GatehouseKit
import GatehouseProtocol
import GatehouseTesting
import Testing

/// An app's own `LoginManager` logs in against the in-process emulator through `HeadlessLoginPresenter`.
@Suite struct HeadlessLoginPresenterTests {
    @Test func aLoginCompletesAndStoresTheToken() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let environment = gatehouse.kitEnvironment()
        let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: gatehouse.users[0])
        let manager = LoginManager(presenter: presenter, environment: environment)
        let result = try await manager.logIn(permissions: ["email", "user_friends"])
        #expect(!result.isCancelled)
        #expect(result.grantedPermissions == ["public_profile", "email", "user_friends"])
        #expect(result.declinedPermissions.isEmpty)
        let token = try #require(result.token)
        #expect(Self.current(environment) == token)
        #expect(token.appID == gatehouse.app.id)
        #expect(presenter.callbacks.count == 1)
        #expect(presenter.callbacks[0].absoluteString.hasPrefix("fb\(gatehouse.app.id)://authorize/#"))
        // The token is the one the server knows: /me answers with the person.
        let me = try await GatehouseEmulatorTests.get(gatehouse, "v27.0/me", ["access_token": token.tokenString])
        #expect(me.0 == 200)
        #expect(me.1["id"] == .string(token.userID))
        #expect(me.1["name"] == .string(gatehouse.users[0].name))
        try await gatehouse.stop()
    }

    @Test func aDeclinedPermissionIsReportedDeclined() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let environment = gatehouse.kitEnvironment()
        let presenter = HeadlessLoginPresenter(
            emulator: gatehouse, person: gatehouse.users[1], decline: ["user_friends"])
        let manager = LoginManager(presenter: presenter, environment: environment)
        let result = try await manager.logIn(permissions: ["email", "user_friends"])
        #expect(result.grantedPermissions == ["public_profile", "email"])
        #expect(result.declinedPermissions == ["user_friends"])
        #expect(Self.current(environment)?.declinedPermissions == [.userFriends])
        try await gatehouse.stop()
    }

    @Test func cancellingEndsTheLoginCancelled() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let environment = gatehouse.kitEnvironment()
        let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: gatehouse.users[2], cancel: true)
        let manager = LoginManager(presenter: presenter, environment: environment)
        let result = try await manager.logIn(permissions: ["email"])
        #expect(result.isCancelled)
        #expect(result.token == nil)
        #expect(Self.current(environment) == nil)
        #expect(presenter.callbacks.first?.fragment?.contains("error=access_denied") == true)
        // The same presenter, told to go on, logs the person in on the next try.
        presenter.cancel = false
        let next = try await manager.logIn(permissions: ["email"])
        #expect(!next.isCancelled)
        #expect(next.grantedPermissions == ["public_profile", "email"])
        try await gatehouse.stop()
    }

    @Test func aCreatedAppAndPersonLogInThroughTheirOwnEnvironment() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let shop = try await gatehouse.createApp(name: "Corner Shop", redirectURIs: ["https://shop.example/callback"])
        let dana = try await gatehouse.createPerson(
            firstName: "Dana", lastName: "Diaz", email: "dana@shop.test", password: "dana-shops", testUserOf: shop)
        let environment = gatehouse.kitEnvironment(app: shop)
        let manager = LoginManager(
            presenter: HeadlessLoginPresenter(emulator: gatehouse, person: dana, app: shop), environment: environment)
        let result = try await manager.logIn(permissions: ["email"])
        #expect(result.token?.appID == shop.id)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        try await gatehouse.stop()
    }

    @Test func aPersonMadeWithoutAPasswordIsPickedOnTheLoginPage() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let nell = try await gatehouse.createPerson(
            firstName: "Nell", lastName: "Nash", email: "nell@example.test", testUserOf: gatehouse.app)
        #expect(nell.password == "")
        let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: nell)
        let manager = LoginManager(presenter: presenter, environment: gatehouse.kitEnvironment())
        let result = try await manager.logIn(permissions: ["email"])
        #expect(!result.isCancelled)
        #expect(result.grantedPermissions == ["public_profile", "email"])
        let token = try #require(result.token)
        let (status, me) = try await GatehouseEmulatorTests.getText(
            gatehouse, "\(GraphAPIVersion.current)/me", ["access_token": token.tokenString])
        #expect(status == 200)
        #expect(me == #"{"name":"Nell Nash","id":"\#(token.userID)"}"#)
        try await gatehouse.stop()
    }

    /// `AccessToken.current` as the app reads it, in `environment`.
    static func current(_ environment: GatehouseKitEnvironment) -> AccessToken? {
        GatehouseKitEnvironment.$taskOverride.withValue(environment) { AccessToken.current }
    }
}
