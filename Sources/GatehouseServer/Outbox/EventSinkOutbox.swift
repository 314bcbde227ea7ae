import AsyncHTTPClient
import Crypto
import Foundation
import GatehouseCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// POSTs one event to a sink. Injected so tests can count calls; the default uses AsyncHTTPClient.
package protocol EventSinkTransport: Sendable {
    /// The HTTP status the sink answered.
    func post(url: String, body: String, headers: [(String, String)], timeout: Duration) async throws -> Int
}

/// The default transport: AsyncHTTPClient, no redirects. Sinks are chosen by the operator in the configuration,
/// not by whoever edits an app, so loopback and internal addresses are allowed (a collector beside the server).
package struct HTTPEventSinkTransport: EventSinkTransport {
    /// Trust for `https://` sinks (``OutboundTrust``: the system's roots and `outbound.ca_file`); nil: the system's.
    package var tlsConfiguration: TLSConfiguration?

    package init(tlsConfiguration: TLSConfiguration? = nil) {
        self.tlsConfiguration = tlsConfiguration
    }

    package func post(url: String, body: String, headers: [(String, String)], timeout: Duration) async throws -> Int {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        if let tlsConfiguration { configuration.tlsConfiguration = tlsConfiguration }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(string: body))
            let seconds = timeout.components.seconds
            let response = try await client.execute(request, timeout: .seconds(seconds))
            // The answer's body is read (up to 64 KiB) and dropped: only the status counts.
            _ = try await response.body.collect(upTo: 64 * 1024)
            try await client.shutdown()
            return Int(response.status.code)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// The event outbox's delivery: POSTs a stored event to its sink, signed with the sink's secret, and logs each
/// attempt. Retries follow ``OutboxPolicy/eventSinks``; a retry carries the same body and event id, so a
/// receiver that got an event twice (its answer timed out) recognises it.
///
/// Headers: `Content-Type: application/json`, `X-Gatehouse-Event-Id`, `X-Gatehouse-Event-Type`,
/// `X-Gatehouse-Delivery-Attempt` and `X-Gatehouse-Signature: sha256=HEX(HMAC-SHA256(secret, body))`.
package struct EventSinkDelivery: OutboxDelivery {
    let sinks: [EventSinkConfiguration]
    let transport: any EventSinkTransport
    let logger: Logger

    package init(sinks: [EventSinkConfiguration], transport: any EventSinkTransport, logger: Logger) {
        self.sinks = sinks
        self.transport = transport
        self.logger = logger
    }

    package func deliver(_ item: inout EventDeliveryRecord) async -> OutboxAttempt {
        guard let sink = sinks.first(where: { $0.name == item.sink }) else {
            return OutboxAttempt(.failed("the sink \(item.sink) is no longer configured"))
        }
        let eventType = (try? JSONDecoder().decode(TypeOnly.self, from: Data(item.body.utf8)))?.type ?? ""
        let headers = [
            ("Content-Type", "application/json"), ("User-Agent", "Gatehouse-Events/1"),
            ("X-Gatehouse-Event-Id", item.eventID), ("X-Gatehouse-Event-Type", eventType),
            ("X-Gatehouse-Delivery-Attempt", "\(item.attempts)"),
            ("X-Gatehouse-Signature", Self.signature(body: item.body, secret: sink.secret)),
        ]
        do {
            let status = try await transport.post(
                url: sink.url, body: item.body, headers: headers, timeout: .seconds(sink.timeoutSeconds))
            guard (200..<300).contains(status) else { return OutboxAttempt(.failed("HTTP \(status)"), status: status) }
            return OutboxAttempt(.delivered(), status: status)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return OutboxAttempt(.failed("no answer within \(sink.timeoutSeconds) s"))
        } catch {
            return OutboxAttempt(.failed("\(type(of: error))"))
        }
    }

    package func finished(_ item: EventDeliveryRecord, _ report: OutboxReport) {
        let metadata: Logger.Metadata = [
            "sink": "\(item.sink)", "event": "\(item.eventID)", "attempt": "\(item.attempts)",
        ]
        if case .failed(let reason) = report.attempt.outcome {
            var metadata = metadata
            metadata["reason"] = "\(reason)"
            if let sequel = report.sequel { metadata["next"] = "\(sequel)" }
            logger.warning("event delivery failed", metadata: metadata)
        } else {
            logger.debug("event delivered", metadata: metadata)
        }
    }

    /// `sha256=` and the hex HMAC-SHA256 of the body under the sink's secret.
    package static func signature(body: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    private struct TypeOnly: Decodable { var type: String }
}
