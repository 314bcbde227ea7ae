import GatehouseCore
import Tracing

/// The span of one outbox attempt (issue 42): `outbox.attempt callback`, `… webhook`, `… event_sink`, `… mail`.
///
/// A worker's attempt is a trace of its own: the request that queued the item finished long before, and linking
/// to it would mean storing its trace context in every outbox row. An attempt made inside a request (a test or
/// a tool delivering at once) is that request's child. The statements it runs are the span's children. Only the
/// outcome and the far end's HTTP status are recorded, never the item's payload or the far end's answer, which
/// carry signed requests and confirmation codes.
enum OutboxAttemptSpan {
    /// Runs `body` (the attempt) in its span and describes the span by the attempt's result.
    static func around<Item: OutboxItem>(
        kind: String, tracer: any Tracer, _ body: () async -> (item: Item, attempt: OutboxAttempt)
    ) async -> Item {
        let span = tracer.startSpan("outbox.attempt \(kind)", ofKind: .client)
        let (item, attempt) = await withTracer(tracer) {
            await InstrumentationContext.$current.withValue(span.context) { await body() }
        }
        span.updateAttributes { attributes in
            attributes["gatehouse.outbox"] = kind
            attributes["gatehouse.outbox.item_id"] = item.id
            attributes["gatehouse.outbox.attempt"] = item.attempts
            attributes["gatehouse.outcome"] = outcome(of: item)
            attributes["http.response.status_code"] = attempt.status
        }
        if case .failed = attempt.outcome {
            span.attributes["error.type"] = attempt.status.map(String.init) ?? "delivery_failed"
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
        return item
    }

    /// `gatehouse.outcome`: `delivered`, `retry` (another attempt is due) or `gave_up`.
    static func outcome(of item: some OutboxItem) -> String {
        if item.deliveredAt != nil { return "delivered" }
        return item.gaveUpAt != nil ? "gave_up" : "retry"
    }
}

extension OutboxDelivery {
    /// The outbox's name in its attempts' spans: the delivery's type without `Delivery`, in snake case
    /// (`CallbackDelivery` → `callback`, `EventSinkDelivery` → `event_sink`).
    static var traceName: String {
        var name = "\(Self.self)"
        if name.hasSuffix("Delivery") { name.removeLast("Delivery".count) }
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty { out.append("_") }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}

extension OutboxWorker {
    /// The same worker with its attempts traced by `tracer`; nil leaves them untraced.
    func traced(by tracer: (any Tracer)?) -> OutboxWorker {
        var outbox = outbox
        outbox.tracer = tracer
        return OutboxWorker(outbox: outbox, period: period, doorbell: doorbell)
    }
}
