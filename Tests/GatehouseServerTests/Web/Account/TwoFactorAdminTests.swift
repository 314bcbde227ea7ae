import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32 item 4: test users get a second factor from the admin API and scenario files (the console and the CLI
/// use the same `AccountService.enableTwoFactor`).
@Suite struct TwoFactorAdminTests {
    static let secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

    @Test func theAdminAPIGivesAndTakesASecondFactorAndShowsTheCodeInDevelopment() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let path = "/admin/api/v1/people/\(server.alice.id)/two_factor"
            let json: HTTPFields = [.contentType: "application/json"]
            #expect(try await client.execute(uri: path, method: .get).json["enabled"]?.boolValue == false)
            let bad = try await client.execute(
                uri: path, method: .put, headers: json, body: ByteBuffer(string: #"{"secret":"not base32!"}"#))
            #expect(bad.status == .badRequest)
            let on = try await client.execute(
                uri: path, method: .put, headers: json, body: ByteBuffer(string: #"{"secret":"\#(Self.secret)"}"#))
            #expect(on.status == .ok, "\(on.text)")
            #expect(on.json["secret"]?.stringValue == Self.secret)
            #expect(
                on.json["otpauth_uri"]?.stringValue?.hasPrefix(
                    "otpauth://totp/Gatehouse:alice%40example.com?secret=\(Self.secret)") == true)
            let totp = TOTP(secret: try #require(Base32.decode(Self.secret)))
            let shown = try await client.execute(uri: path, method: .get)
            #expect(shown.json["enabled"]?.boolValue == true)
            #expect(shown.json["current_code"]?.stringValue == totp.code(at: server.clock.now()))

            // The dialog now asks, and the code from the API passes.
            let browser = Browser(client)
            let query = DialogFlowTests.query(server, [("state", "s1")])
            let page = try await browser.submitLogin(
                page: try await browser.get("/dialog/oauth?" + query), email: "alice@example.com",
                password: "alice-password")
            #expect(page.text.contains("<h1>Enter login code</h1>"))
            let passed = try await browser.post(
                "/dialog/login_code",
                form: [
                    ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""),
                    ("next", Browser.hiddenValue("next", in: page.text) ?? ""),
                    ("code", try #require(shown.json["current_code"]?.stringValue)),
                ])
            #expect(passed.status == .seeOther)

            #expect(try await client.execute(uri: path, method: .delete).status == .noContent)
            #expect(try await client.execute(uri: path, method: .get).json["enabled"]?.boolValue == false)
        }
    }

    @Test func aScenarioFileGivesAPersonASecondFactorOnceAndRefusesABadSecret() async throws {
        let yaml = """
            people:
              tess: {id: "100000000000951", email: tess@example.com, first_name: Tess, last_name: Tester, two_factor_secret: \(Self.secret)}
            """
        let server = try await TestServer.make()
        let loader = ScenarioLoader(services: server.services)
        let scenario = try ScenarioParser(file: "t.yaml", readFile: { _ in nil }).parse(yaml)
        let first = try await loader.apply(scenario, file: "t.yaml")
        #expect(first.changes.map(\.description).contains("people.tess: two-factor login with the file's secret"))
        let record = try await server.services.storage.twoFactor?.find(userID: "100000000000951")
        #expect(record?.isEnabled == true && record?.secret == Self.secret)
        #expect(try await loader.apply(scenario, file: "t.yaml").changes.isEmpty)
        #expect(throws: ScenarioErrors.self) {
            try ScenarioParser(file: "t.yaml", readFile: { _ in nil }).parse(
                yaml.replacingOccurrences(of: Self.secret, with: "x1"))
        }
        try await server.close()
    }
}
