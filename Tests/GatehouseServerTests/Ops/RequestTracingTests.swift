import Foundation
import GatehouseCore
import HTTPTypes
import HummingbirdTesting
import InMemoryTracing
import Testing
import Tracing

@testable import GatehouseServer

/// Issue 42's traces, server side: each request's server span (OpenTelemetry's HTTP conventions plus the app,
/// outcome and journal reason), whose trace a trusted proxy may continue and nobody else, and each outbox
/// attempt's span. An in-memory tracer stands in for swift-otel's exporter.
@Suite struct RequestTracingTests {
    @Test func aRequestsSpanIsNamedAndDescribedAsTheHTTPConventionsSay() async throws {
        let tracer = InMemoryTracer()
        let base = try await TestServer.make()
        let token = try await base.token(for: base.alice)
        let server = base.traced(by: tracer)
        try await server.run(.live) { client in
            let r = try await client.execute(
                uri: "/v27.0/me?fields=id,name&access_token=\(token)", method: .get,
                headers: [.userAgent: "RequestTracingTests/1.0"])
            #expect(r.status == .ok)
        }
        let span = try #require(tracer.finishedSpans.only)
        #expect(span.operationName == "GET /me")
        #expect(span.kind == .server)
        #expect(span.parentSpanID == nil)
        #expect(span.status == nil)
        #expect(
            span.attributes.all == [
                "http.request.method": "GET", "http.route": "/me", "url.path": "/v27.0/me", "url.scheme": "http",
                "server.address": "gatehouse.test", "server.port": 80, "network.protocol.version": "1.1",
                "client.address": "127.0.0.1", "network.peer.address": "127.0.0.1",
                "user_agent.original": "RequestTracingTests/1.0", "http.response.status_code": 200,
                "gatehouse.app_id": .string(server.app.id), "gatehouse.outcome": "ok",
            ])
        Self.expectNoSecret([token, server.app.secret], in: tracer)
    }

    @Test func aRefusalCarriesTheJournalsReasonAndAServerFailureIsAnError() async throws {
        let tracer = InMemoryTracer()
        let server = try await TestServer.make().traced(by: tracer)
        let secret = server.app.secret
        try await server.run(.live) { client in
            let refused = try await client.execute(
                uri: "/v27.0/me?access_token=\(server.app.id)%7Cwrong-\(secret)", method: .get)
            #expect(refused.status == .badRequest)
            let missing = try await client.execute(uri: "/settings/no-such-page", method: .get)
            #expect(missing.status == .notFound)
        }
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["GET /me", "GET /settings/{x}"])
        let journal = server.services.journal.entries()
        for (span, path) in zip(spans, ["/v27.0/me", "/settings/no-such-page"]) {
            let entry = try #require(journal.first { $0.route == path })
            #expect(span.attributes.get("gatehouse.outcome") == "refused")
            #expect(span.attributes.get("gatehouse.reason") == entry.explanation.map(SpanAttribute.string))
            #expect(span.attributes.get("http.response.status_code") == .int64(Int64(entry.status)))
            // A 4xx is the client's doing: the span is no error.
            #expect(span.status == nil)
        }
        #expect(spans.last?.attributes.get("gatehouse.reason") == "there is no page or route at /settings/no-such-page")
        Self.expectNoSecret([secret, "wrong-\(secret)"], in: tracer)
        #expect(RequestOutcome(status: 503, reason: "the server failed unexpectedly") == .error)
        #expect(RequestOutcome(status: 302, reason: nil) == .ok)
        #expect(RequestOutcome(status: 302, reason: "the person declined") == .refused)
    }

    @Test func aTraceIsContinuedFromATrustedProxyOnly() async throws {
        for (proxies, continued) in [(["127.0.0.1"], true), ([String](), false)] {
            let tracer = InMemoryTracer()
            let server = try await TestServer.make(configure: { $0.trustedProxies = proxies }).traced(by: tracer)
            try await server.run(.live) { client in
                let r = try await client.execute(
                    uri: "/healthz", method: .get,
                    headers: [
                        HTTPField.Name(InMemoryTracer.traceIDKey)!: "trace-of-the-proxy",
                        HTTPField.Name(InMemoryTracer.spanIDKey)!: "span-of-the-proxy",
                        HTTPField.Name("traceparent")!: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                        .xForwardedFor: "203.0.113.9",
                    ])
                #expect(r.status == .ok)
            }
            let span = try #require(tracer.finishedSpans.only)
            #expect(span.operationName == "GET /healthz")
            if continued {
                #expect(span.traceID == "trace-of-the-proxy")
                #expect(span.parentSpanID == "span-of-the-proxy")
                #expect(span.attributes.get("client.address") == "203.0.113.9")
                #expect(tracer.performedContextExtractions.count == 1)
            } else {
                // An untrusted peer's headers are not even read: a new trace starts.
                #expect(span.traceID != "trace-of-the-proxy")
                #expect(span.parentSpanID == nil)
                #expect(span.attributes.get("client.address") == "127.0.0.1")
                #expect(tracer.performedContextExtractions.isEmpty)
            }
        }
    }

    @Test func eachOutboxAttemptHasASpanWithItsNumberOutcomeAndStatus() async throws {
        let tracer = InMemoryTracer()
        let server = try await TestServer.make()
        defer { server.scratch.remove() }
        var app = server.app
        app.deauthorizeCallbackURL = "https://app.example.com/deauthorize"
        let answers = StatusTransport(statuses: [500, 200])
        var outbox = CallbackOutbox(
            storage: server.services.storage, clock: server.clock, transport: answers, logger: server.services.logger)
        outbox.journal = nil
        let queued = try #require(
            try await outbox.enqueue(
                .deauthorize, app: app, userID: server.alice.id, scopedUserID: "1", at: server.clock.now()))
        var delivering = outbox.delivering
        delivering.tracer = tracer
        let failed = try #require(await delivering.deliverDue().only)
        #expect(failed.attempts == 1)
        server.clock.advance(by: OutboxPolicy.appCallbacks.backoff[0])
        let delivered = try #require(await delivering.deliverDue().only)
        #expect(delivered.deliveredAt != nil)
        try await server.close()

        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["outbox.attempt callback", "outbox.attempt callback"])
        #expect(spans.map(\.kind) == [.client, .client])
        #expect(
            spans[0].attributes.all == [
                "gatehouse.outbox": "callback", "gatehouse.outbox.item_id": .string(queued.id),
                "gatehouse.outbox.attempt": 1, "gatehouse.outcome": "retry", "http.response.status_code": 500,
                "error.type": "500",
            ])
        #expect(spans[0].status == SpanStatus(code: .error))
        #expect(
            spans[1].attributes.all == [
                "gatehouse.outbox": "callback", "gatehouse.outbox.item_id": .string(queued.id),
                "gatehouse.outbox.attempt": 2, "gatehouse.outcome": "delivered", "http.response.status_code": 200,
            ])
        #expect(spans[1].status == nil)
        // Each worker's attempt is a trace of its own; the signed request never reaches an attribute.
        #expect(spans.allSatisfy { $0.parentSpanID == nil })
        #expect(spans[0].traceID != spans[1].traceID)
        Self.expectNoSecret([queued.body, server.app.secret], in: tracer)
        #expect(WebhookDelivery.traceName == "webhook")
        #expect(EventSinkDelivery.traceName == "event_sink")
        #expect(MailDelivery.traceName == "mail")
    }

    /// No attribute of any span holds any of `secrets`.
    static func expectNoSecret(_ secrets: [String], in tracer: InMemoryTracer) {
        for span in tracer.finishedSpans {
            span.attributes.forEach { name, value in
                for secret in secrets {
                    #expect(!"\(value)".contains(secret), "\(span.operationName) \(name) holds a secret")
                }
            }
        }
    }
}

extension TestServer {
    /// The same server (database, clock, app and people) with its requests traced by `tracer`.
    func traced(by tracer: InMemoryTracer) -> TestServer {
        let traced = GatehouseServices(
            configuration: services.configuration, storage: services.storage, clock: clock,
            passwords: BcryptPasswordHasher(cost: 4), callbacks: notifier, logger: services.logger,
            clockControl: clock, tracer: tracer)
        return TestServer(
            services: traced, clock: clock, notifier: notifier, app: app, alice: alice, bob: bob, scratch: scratch)
    }
}

extension SpanAttributes {
    /// Every attribute, by name.
    var all: [String: SpanAttribute] {
        var out: [String: SpanAttribute] = [:]
        forEach { out[$0] = $1 }
        return out
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}

/// Answers each callback with the next of `statuses`.
private final class StatusTransport: CallbackTransport, Sendable {
    private let statuses: LockedValue<[Int]>

    init(statuses: [Int]) { self.statuses = LockedValue(statuses) }

    func post(url: String, form: String) async throws -> (status: Int, body: [UInt8]) {
        (statuses.withLockedValue { $0.removeFirst() }, [])
    }
}
