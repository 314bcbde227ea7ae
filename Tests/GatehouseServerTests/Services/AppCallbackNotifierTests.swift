import Foundation
import GatehouseProtocol
@testable import GatehouseServer
import Hummingbird
import Logging
import NIOCore
import Testing

/// The real notifier, posting to a real local HTTP endpoint that plays the app's backend.
@Suite struct AppCallbackNotifierTests {
    actor Inbox {
        var bodies: [String] = []
        var failuresLeft: Int
        init(failFirst: Int) { failuresLeft = failFirst }
        func receive(_ body: String) -> Bool {
            bodies.append(body)
            if failuresLeft > 0 { failuresLeft -= 1; return false }
            return true
        }
    }

    @Test func deauthorizeCallbackGetsAVerifiableSignedRequestAndIsRetried() async throws {
        let inbox = Inbox(failFirst: 1)
        let router = Router()
        router.post("/deauth") { request, _ -> HTTPResponse.Status in
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 1 << 16))
            return await inbox.receive(body) ? .ok : .internalServerError
        }
        let portBox = PortBox()
        let backend = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { await portBox.set($0.localAddress?.port ?? 0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await backend.runService(gracefulShutdownSignals: []) }
            let port = try await portBox.wait()
            let app = AppRecord(id: "1234567890123456", secret: "app-secret", clientToken: "c", name: "A", redirectURIs: [],
                                deauthorizeCallbackURL: "http://127.0.0.1:\(port)/deauth", createdAt: Date())
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let notifier = HTTPAppCallbackNotifier(logger: logger, attempts: 3, firstDelay: .milliseconds(50))
            await notifier.appRemoved(app: app, scopedUserID: "555", at: Date(timeIntervalSince1970: 1_800_000_000))
            var bodies: [String] = []
            for _ in 0..<200 {
                bodies = await inbox.bodies
                if bodies.count >= 2 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(bodies.count == 2)
            let form = Dictionary(FormEncoding.decode(bodies.last ?? "") ?? [], uniquingKeysWith: { a, _ in a })
            let payload = try SignedRequest.parse(form["signed_request"] ?? "", secret: "app-secret")
            #expect(payload["user_id"]?.stringValue == "555")
            #expect(payload["issued_at"]?.intValue == 1_800_000_000)
            #expect(payload["algorithm"]?.stringValue == "HMAC-SHA256")
            #expect(throws: SignedRequestError.self) { try SignedRequest.parse(form["signed_request"] ?? "", secret: "other") }
            group.cancelAll()
        }
    }

    actor PortBox {
        var port: Int?
        func set(_ p: Int) { port = p }
        func wait() async throws -> Int {
            for _ in 0..<500 { if let port { return port }; try await Task.sleep(for: .milliseconds(10)) }
            throw CancellationError()
        }
    }
}
