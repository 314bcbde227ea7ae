import Foundation
import GatehouseProtocol
import GatehouseTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GatehouseEmulator` as a user's test sees it: over HTTP, with the wire shapes a Facebook client reads.
@Suite struct GatehouseEmulatorTests {
    /// GET `path` with `query`; the status and the JSON body (decoded, so key order is not compared).
    static func get(_ emulator: GatehouseEmulator, _ path: String, _ query: [String: String]) async throws -> (
        Int, JSONValue
    ) {
        let (status, text) = try await getText(emulator, path, query)
        return (status, try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// GET `path` with `query`; the status and the body exactly as sent.
    static func getText(_ emulator: GatehouseEmulator, _ path: String, _ query: [String: String]) async throws -> (
        Int, String
    ) {
        var components = URLComponents(
            url: emulator.baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let (data, response) = try await URLSession.shared.data(from: components.url!)
        return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
    }

    @Test func theSameSeedGivesTheSameAppPeopleAndTokens() async throws {
        let first = try await GatehouseEmulator.start(.init(seed: 42))
        let second = try await GatehouseEmulator.start(.init(seed: 42))
        let other = try await GatehouseEmulator.start(.init(seed: 43))
        // Everything but the port (in the redirect URI) repeats.
        #expect(
            [first.app.id, first.app.secret, first.app.clientToken] == [
                second.app.id, second.app.secret, second.app.clientToken,
            ])
        #expect(first.users.map(\.id) == second.users.map(\.id))
        let a = try await first.logIn(first.users[1], permissions: ["email"])
        let b = try await second.logIn(second.users[1], permissions: ["email"])
        #expect(a == b)
        #expect(other.app.id != first.app.id)
        #expect(other.app.secret != first.app.secret)
        for emulator in [first, second, other] { try await emulator.stop() }
    }

    @Test func declinedPermissionsShowAsDeclined() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let login = try await gatehouse.logIn(
            gatehouse.users[0], permissions: ["email", "user_friends"], declined: ["user_birthday"])
        #expect(login.grantedPermissions == ["public_profile", "email", "user_friends"])
        let (status, body) = try await Self.getText(
            gatehouse, "v27.0/me/permissions", ["access_token": login.accessToken])
        #expect(status == 200)
        #expect(
            body
                == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","status":"granted"},"#
                + #"{"permission":"user_friends","status":"granted"},{"permission":"user_birthday","status":"declined"}]}"#
        )
        try await gatehouse.stop()
    }

    @Test func movingTheClockPastSixtyDaysExpiresTheToken() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let gatehouse = try await GatehouseEmulator.start(.init(startDate: start))
        let login = try await gatehouse.logIn(gatehouse.users[2])
        #expect(login.expiresAt == start.addingTimeInterval(60 * 86400))
        let (before, _) = try await Self.get(gatehouse, "v27.0/me", ["access_token": login.accessToken])
        #expect(before == 200)
        try await gatehouse.advanceClock(by: 61 * 86400)
        #expect(gatehouse.now == start.addingTimeInterval(61 * 86400))
        let (after, body) = try await Self.get(gatehouse, "v27.0/me", ["access_token": login.accessToken])
        #expect(after == 400)
        #expect(body["error"]?["code"] == 190)
        #expect(body["error"]?["error_subcode"] == 463)
        try await gatehouse.stop()
    }

    @Test func anInjectedAppErrorFailsTheNextCallOnly() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let login = try await gatehouse.logIn(gatehouse.users[0])
        try await gatehouse.injectErrorForApp("app-rate-limit", times: 1)
        let (status, body) = try await Self.get(gatehouse, "v27.0/me", ["access_token": login.accessToken])
        #expect(status == 403)
        #expect(body["error"]?["code"] == 4)
        #expect(body["error"]?["message"] == "(#4) Application request limit reached")
        let (next, me) = try await Self.getText(gatehouse, "v27.0/me", ["access_token": login.accessToken])
        #expect(next == 200)
        // Facebook's order for the default fields: name, then id.
        #expect(me == #"{"name":"\#(gatehouse.users[0].name)","id":"\#(login.userID)"}"#)
        try await gatehouse.stop()
    }

    @Test func stopReleasesThePort() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let url = gatehouse.baseURL.appendingPathComponent("healthz")
        let (_, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        try await gatehouse.stop()
        await #expect(throws: (any Error).self) { _ = try await URLSession.shared.data(from: url) }
    }

    /// The README's example is this target's `ReadmeExampleTests.swift`, word for word, so it cannot rot.
    @Test func theReadmeShowsTheExampleThatRuns() throws {
        let here = URL(fileURLWithPath: #filePath)
        let example = try String(
            contentsOf: here.deletingLastPathComponent().appendingPathComponent("ReadmeExampleTests.swift"),
            encoding: .utf8)
        let readme = try String(
            contentsOf: here.deletingLastPathComponent().appendingPathComponent("../../README.md").standardized,
            encoding: .utf8)
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex(of: "// README example: begin"))
        let end = try #require(lines.firstIndex(of: "// README example: end"))
        let code = lines[(begin + 1)..<end].joined(separator: "\n")
        #expect(readme.contains("```swift\n" + code + "\n```"))
    }
}
