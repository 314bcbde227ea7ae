import Foundation
import GatehouseServer
import NIOHTTP1

/// A webhook receiver in memory: answers verification requests as told and records every request.
final class RecordingWebhookTransport: WebhookTransport, @unchecked Sendable {
    enum Verification {
        /// Echoes `hub.challenge`, as a receiver written to Facebook's documentation does.
        case echo
        case answer(status: Int, body: String)
        case fail
    }

    private let lock = NSLock()
    private var _requests: [WebhookHTTPRequest] = []
    private var _verification: Verification = .echo
    private var _postStatuses: [Int] = []

    var requests: [WebhookHTTPRequest] { lock.withLock { _requests } }
    var posts: [WebhookHTTPRequest] { requests.filter { $0.method == .POST } }
    var verifications: [WebhookHTTPRequest] { requests.filter { $0.method == .GET } }
    var verification: Verification {
        get { lock.withLock { _verification } }
        set { lock.withLock { _verification = newValue } }
    }
    /// Statuses for the next notification POSTs (then 200).
    var postStatuses: [Int] {
        get { lock.withLock { _postStatuses } }
        set { lock.withLock { _postStatuses = newValue } }
    }

    func send(_ request: WebhookHTTPRequest) async throws -> (status: Int, body: [UInt8]) {
        let (verification, status): (Verification, Int) = lock.withLock {
            _requests.append(request)
            if request.method == .POST, !_postStatuses.isEmpty { return (_verification, _postStatuses.removeFirst()) }
            return (_verification, 200)
        }
        if request.method == .POST { return (status, Array("ok".utf8)) }
        switch verification {
        case .echo:
            let query = URLComponents(string: request.url)?.queryItems ?? []
            return (200, Array((query.first { $0.name == "hub.challenge" }?.value ?? "").utf8))
        case .answer(let status, let body): return (status, Array(body.utf8))
        case .fail: throw URLError(.timedOut)
        }
    }
}

extension WebhookHTTPRequest {
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var query: [String: String] {
        Dictionary(
            (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { a, _ in a })
    }
}
