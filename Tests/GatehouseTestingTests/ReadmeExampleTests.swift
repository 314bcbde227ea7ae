// README example: begin
import Foundation
import GatehouseKit
import GatehouseTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Test func theAppShowsWhoLoggedIn() async throws {
    let gatehouse = try await GatehouseEmulator.start()
    let alice = gatehouse.users[0]
    let login = try await gatehouse.logIn(alice, permissions: ["email"])

    // What your app does after a login: ask the Graph API who this is (point it at gatehouse.baseURL).
    var me = URLComponents(url: gatehouse.baseURL.appendingPathComponent("v27.0/me"), resolvingAgainstBaseURL: false)!
    me.queryItems = [
        URLQueryItem(name: "fields", value: "id,name,email"),
        URLQueryItem(name: "access_token", value: login.accessToken),
    ]
    let (data, _) = try await URLSession.shared.data(from: me.url!)
    let person = try JSONDecoder().decode([String: String].self, from: data)
    #expect(person == ["id": login.userID, "name": alice.name, "email": alice.email])

    // Facebook invalidates sessions when people change their password: make the next call fail that way.
    try await gatehouse.injectError("190/460", for: alice)
    let (failure, response) = try await URLSession.shared.data(from: me.url!)
    #expect((response as? HTTPURLResponse)?.statusCode == 400)
    #expect(String(decoding: failure, as: UTF8.self).contains(#""error_subcode":460"#))

    try await gatehouse.stop()
}

@Test func theAppLogsInWithItsOwnLoginManager() async throws {
    let gatehouse = try await GatehouseEmulator.start()
    let dana = try await gatehouse.createPerson(
        firstName: "Dana", lastName: "Diaz", email: "dana@example.test", password: "dana-secret",
        testUserOf: gatehouse.app)

    // Dana in the login dialog, with no browser: signs in, leaves user_friends unticked, presses Continue.
    let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: dana, decline: ["user_friends"])
    let manager = LoginManager(presenter: presenter, environment: gatehouse.kitEnvironment())
    let result = try await manager.logIn(permissions: ["email", "user_friends"])
    #expect(result.grantedPermissions == ["public_profile", "email"])
    #expect(result.declinedPermissions == ["user_friends"])

    // Next time she presses Cancel.
    presenter.cancel = true
    #expect(try await manager.logIn(permissions: ["user_birthday"]).isCancelled)

    try await gatehouse.stop()
}
// README example: end
