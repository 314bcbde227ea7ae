import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays a person in the emulator's login dialog over plain HTTP: opens the dialog URL, signs in on the login form,
/// ticks the permissions on the consent page (or presses Cancel), and returns the URL the dialog redirects to,
/// without following it. Keeps its own cookies, as one browser would. The one dialog player: the emulator's
/// `HeadlessLoginPresenter` and GatehouseKit's live tests both use it.
package final class DialogPlayer: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    package struct Page: Sendable {
        package let status: Int
        package let location: String?
        package let html: String
    }

    /// What the person does on the consent page (and on the publish step, when the dialog shows one).
    package struct Choice: Sendable {
        /// Permissions left unticked.
        package var decline: [String]
        /// Press Cancel instead of Continue (Skip on the publish step).
        package var cancel: Bool
        /// Tick exactly these permissions on the consent page, and of the publish step's those among them
        /// (nil: every permission offered, less `decline`).
        package var only: [String]?
        /// The audience picked on the publish step (nil: keep the preselected one).
        package var audience: String?
        /// Press Skip on the publish step after continuing on the consent page.
        package var skipPublish: Bool

        package init(
            decline: [String] = [], cancel: Bool = false, only: [String]? = nil, audience: String? = nil,
            skipPublish: Bool = false
        ) {
            self.decline = decline
            self.cancel = cancel
            self.only = only
            self.audience = audience
            self.skipPublish = skipPublish
        }
    }

    package enum PlayError: Error, CustomStringConvertible {
        case unexpected(String)
        package var description: String {
            if case .unexpected(let what) = self { return "the login dialog showed something unexpected: \(what)" };
            return ""
        }
    }

    private let lock = NSLock()
    private var cookies: [String: String] = [:]
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    package override init() { super.init() }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Completes the dialog at `url` as `email` and returns the redirect the app receives.
    /// - Parameter userID: the person's id, for one without a password (made without one in development mode):
    ///   with an empty `password` they are picked on the login page's development picker instead.
    package func complete(
        _ url: URL, email: String, password: String, userID: String? = nil, choice: Choice = Choice()
    ) async throws -> URL {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        var page = try await logInIfAsked(
            try await get(url), origin: origin, email: email, password: password, userID: userID)
        if page.status == 302, let location = page.location, let redirect = URL(string: location) { return redirect }
        if page.html.contains("action=\"/dialog/oauth/consent\"") {
            var form = hiddenFields(page.html)
            form.append(("action", choice.cancel ? "cancel" : "continue"))
            let ticked = choice.only ?? Self.offered(page.html).filter { !choice.decline.contains($0) }
            for permission in ticked { form.append(("permission", permission)) }
            page = try await post(URL(string: "dialog/oauth/consent", relativeTo: origin)!, form: form)
            if let location = page.location, let redirect = URL(string: location) { return redirect }
        }
        // Publish permissions have a second step, with the audience preselected.
        guard page.html.contains("action=\"/dialog/oauth/publish\"") else {
            throw PlayError.unexpected("no consent or publish page (HTTP \(page.status))")
        }
        var form = hiddenFields(page.html)
        for read in Self.offered(page.html, name: "read") { form.append(("read", read)) }
        form.append(("action", choice.cancel || choice.skipPublish ? "skip" : "continue"))
        if !choice.cancel {
            for permission in Self.offered(page.html)
            where !choice.decline.contains(permission) && choice.only?.contains(permission) ?? true {
                form.append(("permission", permission))
            }
        }
        if let audience = choice.audience { form.append(("audience", audience)) }
        let done = try await post(URL(string: "dialog/oauth/publish", relativeTo: origin)!, form: form)
        guard let location = done.location, let redirect = URL(string: location) else {
            throw PlayError.unexpected("publish step: HTTP \(done.status)")
        }
        return redirect
    }

    /// What the person does in the feed or requests dialog.
    package enum SocialChoice: Sendable {
        /// Feed: post with this message and audience (nil: the preselected one).
        case post(message: String, audience: String?)
        /// Requests: send to these app-scoped ids (nil: every friend offered).
        case send(to: [String]?)
        case cancel
    }

    /// Completes a feed or requests dialog at `url` as `email` and returns the redirect the app receives.
    package func completeSocial(_ url: URL, email: String, password: String, choice: SocialChoice) async throws
        -> URL
    {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        let page = try await logInIfAsked(try await get(url), origin: origin, email: email, password: password)
        if page.status == 302, let location = page.location, let redirect = URL(string: location) { return redirect }
        let isFeed = page.html.contains("action=\"/dialog/feed/post\"")
        guard isFeed || page.html.contains("action=\"/dialog/apprequests/send\"") else {
            throw PlayError.unexpected("no feed or requests page (HTTP \(page.status))")
        }
        var form = hiddenFields(page.html)
        switch choice {
        case .cancel: form.append(("action", "cancel"))
        case .post(let message, let audience):
            form += [("action", "post"), ("message", message)]
            if let audience { form.append(("audience", audience)) }
        case .send(let to):
            form.append(("action", "send"))
            for id in to ?? Self.offered(page.html, name: "to") { form.append(("to", id)) }
        }
        let done = try await post(
            URL(string: isFeed ? "dialog/feed/post" : "dialog/apprequests/send", relativeTo: origin)!, form: form)
        guard let location = done.location, let redirect = URL(string: location) else {
            throw PlayError.unexpected("feed or requests dialog: HTTP \(done.status)")
        }
        return redirect
    }

    private func logInIfAsked(
        _ page: Page, origin: URL, email: String, password: String, userID: String? = nil
    ) async throws -> Page {
        guard page.html.contains("action=\"/dialog/oauth/login\"") else { return page }
        var form = hiddenFields(page.html)
        let posted: Page
        if password.isEmpty, let userID, page.html.contains("action=\"/dialog/oauth/pick\"") {
            form.append(("user_id", userID))
            posted = try await post(URL(string: "dialog/oauth/pick", relativeTo: origin)!, form: form)
        } else {
            form += [("email", email), ("password", password)]
            posted = try await post(URL(string: "dialog/oauth/login", relativeTo: origin)!, form: form)
        }
        guard let next = posted.location else {
            throw PlayError.unexpected("login form: HTTP \(posted.status) (wrong email or password?)")
        }
        return try await get(URL(string: next, relativeTo: origin)!)
    }

    /// The form's hidden fields the server checks: its CSRF token, the dialog it belongs to and, on the login
    /// form, the kind of login.
    private func hiddenFields(_ html: String) -> [(String, String)] {
        var form = [("csrf_token", Self.hidden("csrf_token", html)), ("dialog", Self.hidden("dialog", html))]
        if html.contains("name=\"kind\"") { form.append(("kind", Self.hidden("kind", html))) }
        return form
    }

    /// One GET with this player's cookies, not following a redirect.
    package func get(_ url: URL) async throws -> Page { try await send(URLRequest(url: url)) }

    /// One form POST with this player's cookies, not following a redirect.
    package func post(_ url: URL, form: [(String, String)]) async throws -> Page {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormEncoding.encode(form).utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Page {
        var request = request
        let cookieHeader = lock.withLock { cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookieHeader.isEmpty { request.setValue(cookieHeader, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw PlayError.unexpected("not an HTTP answer") }
        for part in (http.value(forHTTPHeaderField: "Set-Cookie") ?? "").components(separatedBy: ", ") {
            let pair = part.split(separator: ";").first.map(String.init) ?? ""
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            // Cookie names are tokens; a comma inside an Expires date splits off a fragment that is not one.
            if kv.count == 2, !kv[0].isEmpty, kv[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            {
                lock.withLock { cookies[kv[0]] = kv[1] }
            }
        }
        return Page(
            status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"),
            html: String(decoding: data, as: UTF8.self))
    }

    /// The value of the hidden input `name`, its HTML escapes undone.
    package static func hidden(_ name: String, _ html: String) -> String {
        guard let r = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        let rest = html[r.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
            .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The values of the checkboxes called `name` on a page.
    package static func offered(_ html: String, name: String = "permission") -> [String] {
        html.components(separatedBy: "name=\"\(name)\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
    }
}
