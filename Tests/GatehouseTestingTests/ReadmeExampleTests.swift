// README example: begin
import Foundation
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
    var me = URLComponents(url: gatehouse.baseURL.appendingPathComponent("v21.0/me"), resolvingAgainstBaseURL: false)!
    me.queryItems = [URLQueryItem(name: "fields", value: "id,name,email"), URLQueryItem(name: "access_token", value: login.accessToken)]
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
// README example: end
