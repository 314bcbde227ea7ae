import Foundation
import GatehouseProtocol
import GatehouseTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GatehouseEmulator.connect(to:adminToken:)`: the same helpers on a server reached by URL (here another
/// emulator's, which this process does not drive directly).
@Suite struct RemoteEmulatorTests {
    typealias Wire = GatehouseEmulatorTests

    @Test func everyHelperWorksOnAServerReachedByURL() async throws {
        let server = try await GatehouseEmulator.start(.init(startDate: Date(timeIntervalSince1970: 1_800_000_000)))
        let remote = try await GatehouseEmulator.connect(to: server.baseURL, adminToken: nil)
        // The development seed is found through the API: the same app and people, passwords included.
        #expect(remote.app == server.app)
        #expect(remote.users == server.users)
        #expect(remote.now == server.now)

        let shop = try await remote.createApp(name: "Corner Shop", redirectURIs: ["https://shop.example/callback"])
        let dana = try await remote.createPerson(
            firstName: "Dana", lastName: "Diaz", email: "dana@shop.test", testUserOf: shop)
        try await remote.befriend(dana, remote.users[0])
        try await remote.grant(["user_friends"], to: shop, by: dana)
        let login = try await remote.logIn(dana, to: shop, permissions: ["email"])
        let (status, me) = try await Wire.getText(remote, "v27.0/me", ["access_token": login.accessToken])
        #expect(status == 200)
        #expect(me == #"{"name":"Dana Diaz","id":"\#(login.userID)"}"#)

        let idToken = try await remote.mintIDToken(for: dana, app: shop, nonce: "n")
        #expect(idToken.split(separator: ".").count == 3)
        let code = try await remote.mintCode(for: dana, app: shop)
        #expect(code.hasPrefix("AQ"))

        try await remote.injectError("190/460", for: dana)
        let (injected, body) = try await Wire.get(remote, "v27.0/me", ["access_token": login.accessToken])
        #expect(injected == 400)
        #expect(body["error"]?["error_subcode"] == 460)

        try await remote.advanceClock(by: 61 * 86400)
        #expect(remote.now == Date(timeIntervalSince1970: 1_800_000_000 + 61 * 86400))
        #expect(server.now == remote.now)
        #expect(try await remote.serverTime() == server.now)

        let token = try await remote.mintToken(for: dana, app: shop)
        try await remote.revoke(token)
        #expect(try await Wire.get(remote, "v27.0/me", ["access_token": token.accessToken]).0 == 400)

        // stop() on a connected emulator leaves the server running.
        try await remote.stop()
        #expect(try await Wire.getText(server, "healthz", [:]).0 == 200)
        try await server.stop()
    }

    /// The admin token travels as `Authorization: Bearer`: a development server is open but names the token in its
    /// audit log, and refuses a token it does not know on no route (so the log is the proof it was sent).
    @Test func theAdminTokenIsSentWithEveryCall() async throws {
        let server = try await GatehouseEmulator.start()
        var request = URLRequest(url: server.baseURL.appendingPathComponent("admin/api/v1/admin-tokens"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"ci"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let token = try #require(try JSONValue.parse(data)["token"]?.stringValue)

        let remote = try await GatehouseEmulator.connect(to: server.baseURL, adminToken: token)
        let shop = try await remote.createApp(name: "Audited")
        try await remote.befriend(remote.users[0], remote.users[1])
        try await remote.advanceClock(by: 60)
        try await remote.injectError("190/460", for: remote.users[0])
        let (_, audit) = try await Wire.get(server, "admin/api/v1/audit", [:])
        let entry = try #require(
            audit["data"]?.arrayValue?.first { $0["route"] == "/admin/api/v1/apps" && $0["method"] == "POST" })
        #expect(entry["actor"]?["kind"] == "token")
        #expect(entry["actor"]?["name"] == "ci")
        #expect(entry["status"] == 201)
        #expect(!shop.id.isEmpty)
        // The clock and injections go through v1 too (the older /admin/api routes only for a server without them).
        let routes = audit["data"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
        #expect(routes.contains("/admin/api/v1/clock/advance"))
        #expect(routes.contains("/admin/api/v1/injections"))
        #expect(!routes.contains { $0.hasPrefix("/admin/api/") && !$0.hasPrefix("/admin/api/v1/") })
        // A route with path parameters names them as the target.
        let befriended = try #require(
            audit["data"]?.arrayValue?.first { $0["route"] == "/admin/api/v1/people/{id}/friends/{other_id}" })
        #expect(befriended["actor"]?["name"] == "ci")
        #expect(befriended["target"] == .string("\(remote.users[0].id)/\(remote.users[1].id)"))
        try await server.stop()
    }

    @Test func aServerThatIsNotThereFailsToConnect() async throws {
        let server = try await GatehouseEmulator.start()
        let url = server.baseURL
        try await server.stop()
        await #expect(throws: (any Error).self) { _ = try await GatehouseEmulator.connect(to: url, adminToken: nil) }
    }
}
