import Foundation
import GatehouseKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays the sender in the emulator's requests dialog over plain HTTP: signs in on the login form, ticks every
/// friend offered and presses Send, and returns the redirect the app receives (without following it).
/// Only public API and HTTP, as an app's own test double would be.
final class RequestsDialogPresenter: NSObject, LoginDialogPresenting, URLSessionTaskDelegate, @unchecked Sendable {
    let appID: String
    let email: String
    let password: String
    private let lock = NSLock()
    private var cookies: [String: String] = [:]
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    init(appID: String, email: String, password: String) {
        self.appID = appID
        self.email = email
        self.password = password
    }

    func prepare() async throws -> String { "fb\(appID)://authorize/" }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func present(_ url: URL) async throws -> URL? {
        let origin = URL(string: "/", relativeTo: url)!.absoluteURL
        var page = try await send(URLRequest(url: url))
        if page.html.contains("action=\"/dialog/oauth/login\"") {
            let posted = try await post(
                URL(string: "dialog/oauth/login", relativeTo: origin)!,
                form: hidden(page.html) + [("email", email), ("password", password)])
            page = try await send(URLRequest(url: URL(string: posted.location ?? "", relativeTo: origin)!))
        }
        let friends = page.html.components(separatedBy: "name=\"to\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
        let sent = try await post(
            URL(string: "dialog/apprequests/send", relativeTo: origin)!,
            form: hidden(page.html) + [("action", "send")] + friends.map { ("to", $0) })
        return sent.location.flatMap(URL.init(string:))
    }

    private struct Page { let location: String?; let html: String }

    private func hidden(_ html: String) -> [(String, String)] {
        var form = [("csrf_token", Self.value("csrf_token", html)), ("dialog", Self.value("dialog", html))]
        if html.contains("name=\"kind\"") { form.append(("kind", Self.value("kind", html))) }
        return form
    }

    private static func value(_ name: String, _ html: String) -> String {
        guard let r = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        let rest = html[r.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
            .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    private func post(_ url: URL, form: [(String, String)]) async throws -> Page {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data(
            form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(
                separator: "&"
            ).utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Page {
        var request = request
        let header = lock.withLock { cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !header.isEmpty { request.setValue(header, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        for part in (http?.value(forHTTPHeaderField: "Set-Cookie") ?? "").components(separatedBy: ", ") {
            let kv = (part.split(separator: ";").first.map(String.init) ?? "").split(separator: "=", maxSplits: 1).map(
                String.init)
            if kv.count == 2, kv[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) {
                lock.withLock { cookies[kv[0]] = kv[1] }
            }
        }
        return Page(location: http?.value(forHTTPHeaderField: "Location"), html: String(decoding: data, as: UTF8.self))
    }
}
