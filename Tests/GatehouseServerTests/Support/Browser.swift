import Foundation
import GatehouseProtocol
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Plays a browser in tests: keeps cookies, follows the dialog's forms, reads hidden fields.
final class Browser: @unchecked Sendable {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]

    init(_ client: any TestClientProtocol) { self.client = client }

    @discardableResult
    func get(_ uri: String) async throws -> TestResponse {
        let response = try await client.execute(uri: uri, method: .get, headers: cookieHeaders(), body: nil)
        absorb(response)
        return response
    }

    @discardableResult
    func post(_ uri: String, form: [(String, String)]) async throws -> TestResponse {
        var headers = cookieHeaders()
        headers[.contentType] = "application/x-www-form-urlencoded"
        let response = try await client.execute(
            uri: uri, method: .post, headers: headers, body: ByteBuffer(string: FormEncoding.encode(form)))
        absorb(response)
        return response
    }

    /// Sets a cookie as if another site had planted it (the CSRF-binding tests).
    func plantCookie(name: String, value: String) { cookies[name] = value }

    func cookieHeaders() -> HTTPFields {
        var headers = HTTPFields()
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        }
        return headers
    }

    func absorb(_ response: TestResponse) {
        for field in response.headers where field.name == .setCookie {
            let pair = field.value.split(separator: ";", maxSplits: 1).first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { continue }
            if field.value.contains("Max-Age=0") { cookies[parts[0]] = nil } else { cookies[parts[0]] = parts[1] }
        }
    }

    /// The value of `<input … name="NAME" value="…">` in a page.
    static func hiddenValue(_ name: String, in html: String) -> String? {
        guard let nameRange = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[nameRange.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(
            of: "&#39;", with: "'"
        )
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
        .replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
        .replacingOccurrences(of: "&#x60;", with: "`")
    }

    /// Path and query of an absolute or relative Location.
    static func relative(_ location: String) -> String {
        if let range = location.range(of: "://"), let slash = location[range.upperBound...].firstIndex(of: "/") {
            return String(location[slash...])
        }
        return location
    }

    /// Submits the login form on `page` with the given credentials; returns the 303.
    func submitLogin(page: TestResponse, email: String, password: String) async throws -> TestResponse {
        let html = page.text
        return try await post(
            "/dialog/oauth/login",
            form: [
                ("csrf_token", Self.hiddenValue("csrf_token", in: html) ?? ""),
                ("dialog", Self.hiddenValue("dialog", in: html) ?? ""),
                ("email", email), ("password", password),
            ])
    }

    /// Submits the consent form on `page`, ticking exactly `permissions`; returns the 303.
    func submitConsent(page: TestResponse, permissions: [String], cancel: Bool = false) async throws -> TestResponse {
        let html = page.text
        var form: [(String, String)] = [
            ("csrf_token", Self.hiddenValue("csrf_token", in: html) ?? ""),
            ("dialog", Self.hiddenValue("dialog", in: html) ?? ""),
            ("action", cancel ? "cancel" : "continue"),
        ]
        for p in permissions { form.append(("permission", p)) }
        return try await post("/dialog/oauth/consent", form: form)
    }

    /// Runs the whole dialog: open, log in if asked, consent with `grant` (nil = everything offered), and on the
    /// publish step (if shown) keep the granted publish permissions with `audience` (nil: the preselected one).
    /// Returns the final redirect to the app.
    func logIn(query: String, email: String, password: String, grant: [String]? = nil, audience: String? = nil)
        async throws -> String
    {
        var page = try await get("/dialog/oauth?" + query)
        if page.text.contains("action=\"/dialog/oauth/login\"") {
            let posted = try await submitLogin(page: page, email: email, password: password)
            guard posted.status == .seeOther, let next = posted.location else {
                throw BrowserError.unexpected("login answered \(posted.status)")
            }
            page = try await get(next)
        }
        if page.status == .found, let location = page.location { return location }
        if page.text.contains("action=\"/dialog/oauth/consent\"") {
            let offered = Self.offered(in: page.text)
            page = try await submitConsent(page: page, permissions: grant ?? offered)
            if page.status == .seeOther, let location = page.location { return location }
        }
        guard page.text.contains("action=\"/dialog/oauth/publish\"") else {
            throw BrowserError.unexpected("no consent or publish page: \(page.status)")
        }
        let publish = Self.offered(in: page.text).filter { grant?.contains($0) ?? true }
        let done = try await submitPublish(page: page, permissions: publish, audience: audience)
        guard done.status == .seeOther, let location = done.location else {
            throw BrowserError.unexpected("publish answered \(done.status)")
        }
        return location
    }

    /// Submits the publish step on `page`: the carried read choices, `permissions`, `audience`, or Skip.
    func submitPublish(page: TestResponse, permissions: [String], audience: String?, skip: Bool = false) async throws
        -> TestResponse
    {
        let html = page.text
        var form: [(String, String)] = [
            ("csrf_token", Self.hiddenValue("csrf_token", in: html) ?? ""),
            ("dialog", Self.hiddenValue("dialog", in: html) ?? ""),
            ("action", skip ? "skip" : "continue"),
        ]
        for read in Self.values(named: "read", in: html) { form.append(("read", read)) }
        for p in permissions { form.append(("permission", p)) }
        if let audience { form.append(("audience", audience)) }
        return try await post("/dialog/oauth/publish", form: form)
    }

    /// Every `value` of inputs called `name` on a page.
    static func values(named name: String, in html: String) -> [String] {
        html.components(separatedBy: "name=\"\(name)\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
    }

    /// The permission checkboxes a consent page offers.
    static func offered(in html: String) -> [String] {
        html.components(separatedBy: "name=\"permission\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
    }

    enum BrowserError: Error { case unexpected(String) }
}

/// Parameters of a redirect URL: query merged with fragment.
func redirectParameters(_ url: String) -> [String: String] {
    LoginCallback.parameters(of: URL(string: url)!)
}
