import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 12, finding 7: an unknown email must not answer faster (or differently) than a wrong password,
/// or the login form tells an attacker who has an account.
///
/// The time is the bcrypt verification, so the test checks the work instead of a stopwatch: an unknown email
/// runs exactly one verification, against a hash of the same algorithm and cost as real users' hashes, just
/// as a wrong password does. (A wall-clock comparison of the two, run beside the rest of the suite on a
/// loaded two-core machine, drifted past any fair bound; timing is a benchmark's business.)
@Suite struct AccountEnumerationTests {
    /// Records the hash each verification is made against.
    final class RecordingHasher: PasswordHasher, @unchecked Sendable {
        private let inner = BcryptPasswordHasher(cost: 5)
        private let lock = NSLock()
        private var hashes: [String] = []

        var verifiedAgainst: [String] { lock.withLock { hashes } }
        func hash(_ password: String) async throws -> String { try await inner.hash(password) }
        func dummyHash() async throws -> String { try await inner.dummyHash() }
        func verify(_ password: String, hash: String) async throws -> Bool {
            lock.withLock { hashes.append(hash) }
            return try await inner.verify(password, hash: hash)
        }
    }

    /// The algorithm and cost a bcrypt hash announces (`$2b$05$`).
    static func costPrefix(_ hash: String) -> String { String(hash.prefix(7)) }

    @Test func anUnknownEmailCostsOneVerificationAtTheRealCostLikeAWrongPassword() async throws {
        let hasher = RecordingHasher()
        let server = try await TestServer.make(passwords: hasher)
        let alice = try #require(try await server.services.storage.users.find(email: "alice@example.com"))
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/login").text))
            func attempt(_ email: String) async throws -> TestResponse {
                var headers = browser.cookieHeaders()
                headers[.contentType] = "application/x-www-form-urlencoded"
                let body = ByteBuffer(
                    string: FormEncoding.encode([
                        ("csrf_token", csrf), ("email", email), ("password", "not the password"),
                    ]))
                return try await client.execute(uri: "/login", method: .post, headers: headers, body: body)
            }
            let known = try await attempt("alice@example.com")
            #expect(known.status == .unauthorized)
            #expect(hasher.verifiedAgainst == [alice.passwordHash])

            for email in ["nobody@example.com", "NOBODY@example.org", "x@y.z"] {
                let before = hasher.verifiedAgainst.count
                let unknown = try await attempt(email)
                #expect(unknown.status == .unauthorized)
                let made = Array(hasher.verifiedAgainst.dropFirst(before))
                #expect(made.count == 1, "\(email): \(made.count) verifications")
                // A real bcrypt hash of the same algorithm and cost, and nobody's.
                #expect(made.first.map(Self.costPrefix) == Self.costPrefix(alice.passwordHash))
                #expect(made.first != alice.passwordHash)
                // And the same words: nothing on the page tells the two apart.
                #expect(unknown.text == known.text)
            }
            #expect(known.text.contains("The email or password you entered is incorrect."))
        }
    }
}
