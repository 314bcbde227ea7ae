import Foundation
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 12, finding 7: an unknown email must not answer faster (or differently) than a wrong password,
/// or the login form tells an attacker who has an account.
@Suite struct AccountEnumerationTests {
    /// Median time of an unknown email within 20% of a known email with a wrong password, over 30 tries each.
    ///
    /// Robust on a loaded machine: the tries are interleaved (known, unknown, known, …) so load spikes hit both
    /// series alike, medians ignore outliers, and the test server's own bcrypt cost is used, so only the ratio matters.
    @Test func anUnknownEmailTakesAsLongAsAWrongPassword() async throws {
        let server = try await TestServer.make(configure: {
            // Sixty attempts on two accounts must not run into the throttle.
            $0.limits.loginAttemptsPerAccount = 1000
            $0.limits.loginAttemptsPerIP = 1000
        })
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/login").text))
            func attempt(_ email: String) async throws -> (Duration, TestResponse) {
                var headers = browser.cookieHeaders()
                headers[.contentType] = "application/x-www-form-urlencoded"
                let body = ByteBuffer(string: FormEncoding.encode([("csrf_token", csrf), ("email", email), ("password", "not the password")]))
                let clock = ContinuousClock()
                let start = clock.now
                let response = try await client.execute(uri: "/login", method: .post, headers: headers, body: body)
                return (clock.now - start, response)
            }
            // Warm up both paths (connection, statement cache, the dummy hash).
            for _ in 0..<3 { _ = try await attempt("alice@example.com"); _ = try await attempt("nobody@example.com") }
            var known: [Duration] = [], unknown: [Duration] = []
            var knownPage = "", unknownPage = ""
            for i in 0..<60 {
                if i % 2 == 0 {
                    let (time, response) = try await attempt("alice@example.com")
                    known.append(time); knownPage = response.text
                    #expect(response.status == .unauthorized)
                } else {
                    let (time, response) = try await attempt("nobody-\(i)@example.com")
                    unknown.append(time); unknownPage = response.text
                    #expect(response.status == .unauthorized)
                }
            }
            func median(_ values: [Duration]) -> Double {
                let sorted = values.map { Double($0.components.attoseconds) / 1e18 + Double($0.components.seconds) }.sorted()
                return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            let ratio = median(unknown) / median(known)
            #expect(ratio > 0.8 && ratio < 1.2, "unknown/known median ratio \(ratio)")
            // And the same words: nothing on the page tells the two apart.
            #expect(knownPage == unknownPage)
            #expect(knownPage.contains("The email or password you entered is incorrect."))
        }
    }
}
