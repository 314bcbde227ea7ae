import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays the person in the browser: opens a dialog URL, logs in, ticks permissions, presses a button,
/// and returns the URL the dialog redirected to (without following it).
final class DialogBrowser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    enum Choice: Sendable {
        /// Continue, granting exactly these optional permissions (nil = everything offered).
        case grant([String]?)
        case cancel
    }

    private var cookies: [String: String] = [:]
    private let lock = NSLock()
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    struct Page { let status: Int; let location: String?; let html: String }

    func get(_ url: URL) async throws -> Page { try await send(URLRequest(url: url)) }

    func post(_ url: URL, form: [(String, String)]) async throws -> Page {
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
        let http = response as! HTTPURLResponse
        if let setCookie = http.value(forHTTPHeaderField: "Set-Cookie") {
            for part in setCookie.components(separatedBy: ", ") {
                let pair = part.split(separator: ";").first.map(String.init) ?? ""
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                if kv.count == 2, !kv[0].isEmpty, kv[0].allSatisfy({ $0.isLetter || $0 == "_" }) {
                    lock.withLock { cookies[kv[0]] = kv[1] }
                }
            }
        }
        return Page(
            status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"),
            html: String(decoding: data, as: UTF8.self))
    }

    static func hidden(_ name: String, _ html: String) -> String {
        guard let r = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        let rest = html[r.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x2F;", with: "/")
            .replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
    }

    /// Logs in on `page` if it is the login form; returns the page the dialog shows next.
    func logInIfAsked(_ page: Page, origin: URL, email: String, password: String) async throws -> Page {
        guard page.html.contains("action=\"/dialog/oauth/login\"") else { return page }
        var form = [
            ("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html)),
            ("email", email), ("password", password),
        ]
        if page.html.contains("name=\"kind\"") { form.append(("kind", Self.hidden("kind", page.html))) }
        let posted = try await post(URL(string: "dialog/oauth/login", relativeTo: origin)!, form: form)
        guard let next = posted.location else { throw BrowserError.unexpected("login: \(posted.status)") }
        return try await get(URL(string: next, relativeTo: origin)!)
    }

    static func offered(_ html: String, name: String = "permission") -> [String] {
        html.components(separatedBy: "name=\"\(name)\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
    }

    /// Completes the dialog at `url` as `email` and returns the redirect URL the app receives. `audience` is
    /// picked on the publish step, if the dialog shows one; `skipPublish` presses Skip there.
    func complete(
        _ url: URL, email: String, password: String, choice: Choice = .grant(nil), audience: String? = nil,
        skipPublish: Bool = false
    ) async throws -> URL {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        var page = try await logInIfAsked(try await get(url), origin: origin, email: email, password: password)
        if let location = page.location, page.status == 302 { return URL(string: location)! }
        if page.html.contains("action=\"/dialog/oauth/consent\"") {
            let offered = Self.offered(page.html)
            var form: [(String, String)] = [
                ("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html)),
            ]
            switch choice {
            case .cancel: form.append(("action", "cancel"))
            case .grant(let chosen):
                form.append(("action", "continue"))
                for p in chosen ?? offered { form.append(("permission", p)) }
            }
            page = try await post(URL(string: "dialog/oauth/consent", relativeTo: origin)!, form: form)
            if let location = page.location, let redirect = URL(string: location) { return redirect }
        }
        guard page.html.contains("action=\"/dialog/oauth/publish\"") else {
            throw BrowserError.unexpected("no consent or publish page (\(page.status))")
        }
        var form: [(String, String)] = [
            ("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html)),
        ]
        for read in Self.offered(page.html, name: "read") { form.append(("read", read)) }
        if case .cancel = choice {
            form.append(("action", "skip"))
        } else {
            form.append(("action", skipPublish ? "skip" : "continue"))
        }
        if case .grant(let chosen) = choice {
            for p in Self.offered(page.html) where chosen?.contains(p) ?? true { form.append(("permission", p)) }
        }
        if let audience { form.append(("audience", audience)) }
        let done = try await post(URL(string: "dialog/oauth/publish", relativeTo: origin)!, form: form)
        guard let location = done.location, let redirect = URL(string: location) else {
            throw BrowserError.unexpected("publish: \(done.status)")
        }
        return redirect
    }

    /// What the person does in the feed or requests dialog.
    enum SocialChoice: Sendable {
        /// Feed: post with this message and audience (nil: the preselected one).
        case post(message: String, audience: String?)
        /// Requests: send to these app-scoped ids (nil: every friend offered).
        case send(to: [String]?)
        case cancel
    }

    /// Completes a feed or requests dialog and returns the redirect URL the app receives.
    func completeSocial(_ url: URL, email: String, password: String, choice: SocialChoice) async throws -> URL {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        let page = try await logInIfAsked(try await get(url), origin: origin, email: email, password: password)
        if let location = page.location, page.status == 302 { return URL(string: location)! }
        let isFeed = page.html.contains("action=\"/dialog/feed/post\"")
        guard isFeed || page.html.contains("action=\"/dialog/apprequests/send\"") else {
            throw BrowserError.unexpected("no dialog page (\(page.status))")
        }
        var form: [(String, String)] = [
            ("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html)),
        ]
        switch choice {
        case .cancel: form.append(("action", "cancel"))
        case .post(let message, let audience):
            form.append(("action", "post"))
            form.append(("message", message))
            if let audience { form.append(("audience", audience)) }
        case .send(let to):
            form.append(("action", "send"))
            for id in to ?? Self.offered(page.html, name: "to") { form.append(("to", id)) }
        }
        let done = try await post(
            URL(string: isFeed ? "dialog/feed/post" : "dialog/apprequests/send", relativeTo: origin)!, form: form)
        guard let location = done.location, let redirect = URL(string: location) else {
            throw BrowserError.unexpected("dialog: \(done.status)")
        }
        return redirect
    }

    enum BrowserError: Error { case unexpected(String) }
}
