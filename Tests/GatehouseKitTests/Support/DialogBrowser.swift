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

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
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
                if kv.count == 2, !kv[0].isEmpty, kv[0].allSatisfy({ $0.isLetter || $0 == "_" }) { lock.withLock { cookies[kv[0]] = kv[1] } }
            }
        }
        return Page(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"), html: String(decoding: data, as: UTF8.self))
    }

    static func hidden(_ name: String, _ html: String) -> String {
        guard let r = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        let rest = html[r.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x2F;", with: "/")
            .replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
    }

    /// Completes the dialog at `url` as `email` and returns the redirect URL the app receives.
    func complete(_ url: URL, email: String, password: String, choice: Choice = .grant(nil)) async throws -> URL {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        var page = try await get(url)
        if page.html.contains("action=\"/dialog/oauth/login\"") {
            let posted = try await post(URL(string: "dialog/oauth/login", relativeTo: origin)!, form: [
                ("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html)),
                ("email", email), ("password", password),
            ])
            guard let next = posted.location else { throw BrowserError.unexpected("login: \(posted.status)") }
            page = try await get(URL(string: next, relativeTo: origin)!)
        }
        if let location = page.location, page.status == 302 { return URL(string: location)! }
        guard page.html.contains("action=\"/dialog/oauth/consent\"") else { throw BrowserError.unexpected("no consent page (\(page.status))") }
        let offered = page.html.components(separatedBy: "name=\"permission\" value=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        var form: [(String, String)] = [("csrf_token", Self.hidden("csrf_token", page.html)), ("dialog", Self.hidden("dialog", page.html))]
        switch choice {
        case .cancel: form.append(("action", "cancel"))
        case .grant(let chosen):
            form.append(("action", "continue"))
            for p in chosen ?? offered { form.append(("permission", p)) }
        }
        let done = try await post(URL(string: "dialog/oauth/consent", relativeTo: origin)!, form: form)
        guard let location = done.location, let redirect = URL(string: location) else { throw BrowserError.unexpected("consent: \(done.status)") }
        return redirect
    }

    enum BrowserError: Error { case unexpected(String) }
}
