import AsyncHTTPClient
import Foundation
import GatehouseProtocol
import Logging
import NIOCore
import NIOHTTP1

/// Tells an app's backend about things people did, through the callback URLs the app registered.
public protocol AppCallbackNotifier: Sendable {
    /// The person removed the app: POST `signed_request` to the deauthorize callback URL.
    func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async
}

/// Posts `signed_request` forms with AsyncHTTPClient, retrying with back-off when the app's endpoint fails.
///
/// Delivery runs in a detached task so the person's request never waits on the app's server.
public struct HTTPAppCallbackNotifier: AppCallbackNotifier {
    let logger: Logger
    let attempts: Int
    let firstDelay: Duration

    public init(logger: Logger, attempts: Int = 4, firstDelay: Duration = .milliseconds(500)) {
        self.logger = logger
        self.attempts = attempts
        self.firstDelay = firstDelay
    }

    public func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async {
        guard let url = app.deauthorizeCallbackURL, !url.isEmpty else { return }
        let payload: JSONObject = [
            "algorithm": "HMAC-SHA256", "issued_at": .int(Int64(at.timeIntervalSince1970)), "user_id": .string(scopedUserID),
        ]
        let body = FormEncoding.encode([("signed_request", SignedRequest.make(payload: payload, secret: app.secret))])
        let logger = self.logger, attempts = self.attempts, firstDelay = self.firstDelay
        Task.detached {
            await Self.deliver(url: url, body: body, appID: app.id, attempts: attempts, firstDelay: firstDelay, logger: logger)
        }
    }

    static func deliver(url: String, body: String, appID: String, attempts: Int, firstDelay: Duration, logger: Logger) async {
        var delay = firstDelay
        for attempt in 1...max(1, attempts) {
            do {
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                if (200..<300).contains(response.status.code) {
                    logger.info("deauthorize callback delivered", metadata: ["app": "\(appID)", "attempt": "\(attempt)"])
                    return
                }
                logger.warning("deauthorize callback refused", metadata: ["app": "\(appID)", "status": "\(response.status.code)"])
            } catch {
                logger.warning("deauthorize callback failed", metadata: ["app": "\(appID)", "error": "\(type(of: error))"])
            }
            if attempt < attempts {
                try? await Task.sleep(for: delay)
                delay *= 2
            }
        }
    }
}
