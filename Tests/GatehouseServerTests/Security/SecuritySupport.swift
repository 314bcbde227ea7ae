import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Counts password verifications, and holds each one back a little so parallel attempts overlap the way they do
/// under a real bcrypt cost (the race finding 6 is about).
final class CountingPasswordHasher: PasswordHasher, @unchecked Sendable {
    private let inner = BcryptPasswordHasher(cost: 4)
    private let lock = NSLock()
    private var verified = 0
    let delay: Duration

    init(delay: Duration = .milliseconds(50)) { self.delay = delay }

    var verifications: Int { lock.withLock { verified } }

    func hash(_ password: String) async throws -> String { try await inner.hash(password) }
    func dummyHash() async throws -> String { try await inner.dummyHash() }
    func verify(_ password: String, hash: String) async throws -> Bool {
        lock.withLock { verified += 1 }
        try await Task.sleep(for: delay)
        return try await inner.verify(password, hash: hash)
    }
}

/// The three password forms for people, each driven the way a browser would (GET the form, POST it).
enum PasswordForm: String, CaseIterable, Sendable {
    case dialog, settings, device

    /// GETs the form and POSTs the credentials, optionally as a client behind the trusted proxy.
    func submit(_ browser: Browser, server: TestServer, email: String, password: String, from ip: String? = nil)
        async throws -> TestResponse
    {
        let (page, action): (TestResponse, String)
        switch self {
        case .dialog:
            (page, action) = (
                try await browser.get("/dialog/oauth?" + DialogFlowTests.query(server)), "/dialog/oauth/login"
            )
        case .settings: (page, action) = (try await browser.get("/login"), "/login")
        case .device: (page, action) = (try await browser.get("/device"), "/device/signin")
        }
        var form = [
            ("csrf_token", Browser.hiddenValue("csrf_token", in: page.text) ?? ""), ("email", email),
            ("password", password),
        ]
        if let dialog = Browser.hiddenValue("dialog", in: page.text) { form.append(("dialog", dialog)) }
        var headers = browser.cookieHeaders()
        headers[.contentType] = "application/x-www-form-urlencoded"
        if let ip { headers[HTTPField.Name("X-Forwarded-For")!] = ip }
        let response = try await browser.client.execute(
            uri: action, method: .post, headers: headers, body: ByteBuffer(string: FormEncoding.encode(form)))
        browser.absorb(response)
        return response
    }

    /// The status a wrong password gets on this form.
    var refusedStatus: HTTPResponse.Status { self == .dialog ? .seeOther : .unauthorized }
}
