import Foundation
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport
import NIOConcurrencyHelpers
import Testing
import Tracing

/// Every statement the stores run inside a trace is a client span of it, named and described by OpenTelemetry's
/// database conventions, on SQLite (routed reads, kept reads, group commits) and PostgreSQL (plain and prepared
/// statements, transactions); outside a trace, or with tracing off, there is none.
@Suite("Database spans")
struct DatabaseSpansTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aStatementIsNamedByItsOperationAndItsFirstTable() {
        let names = [
            #"SELECT "id", "name" FROM "users" WHERE "id" = ?"#: "SELECT users",
            "SELECT t.id AS t_id FROM tokens t LEFT JOIN apps a ON a.id = t.app_id WHERE t.token_hash = $1":
                "SELECT tokens",
            #"INSERT INTO "grants" ("app_id", "user_id") VALUES ($1, $2) ON CONFLICT DO NOTHING"#: "INSERT grants",
            #"UPDATE "users" SET "name" = ? WHERE "id" = ?"#: "UPDATE users",
            #"DELETE FROM "tokens" WHERE "token_hash" = ?"#: "DELETE tokens",
            "SELECT COUNT(*) AS n FROM (SELECT id FROM apps) AS x": "SELECT",
            "SELECT 1": "SELECT",
            "BEGIN IMMEDIATE": "BEGIN",
            "PRAGMA data_version": "PRAGMA",
        ]
        for (sql, name) in names {
            #expect(DatabaseSpans.summary(of: sql).spanName == name, "\(sql)")
        }
        #expect(DatabaseSpans.summary(of: "SELECT 1").collection == nil)
        #expect(DatabaseSpans.summary(of: #"UPDATE "users" SET x = 1"#).operation == "UPDATE")
    }

    @Test(arguments: ["sqlite", "postgresql"])
    func aTracedStatementIsAClientSpanUnderTheCallersSpan(system: String) async throws {
        let tracer = RecordingTracer()
        try await withTracedStorage(system, tracer: tracer) { storage in
            // Outside any trace (a background poll, this setup): no span at all.
            let c = try await CallerScenario.make(1, on: storage, now: Self.now)
            #expect(tracer.spans.isEmpty)

            try await ServiceContext.withValue(tracer.parent("request-1")) {
                // SQLite: the kept read on the caller's thread; PostgreSQL: a prepared statement.
                #expect(try await storage.callerRecords.callerRecords(tokenHash: c.token.tokenHash) != nil)
                #expect(try await storage.apps.find(id: c.app.id) != nil)
                var user = c.user
                user.firstName = "Renamed"
                try await storage.users.update(user)
                let writes = try #require(storage.writes)
                try await writes.write { tx in
                    try await tx.tokens.insert(Fixture.token("t2", app: c.app.id, user: c.user.id))
                }
            }
            let spans = tracer.spans
            let names = spans.map(\.name)
            #expect(names.contains("SELECT tokens"), "the caller's joined read: \(names)")
            #expect(names.contains("SELECT apps"), "\(names)")
            #expect(names.contains("UPDATE users"), "\(names)")
            #expect(names.contains("INSERT tokens"), "the transaction's statement: \(names)")
            #expect(names.filter { $0 == "SELECT tokens" }.count == 1, "a kept read is one span: \(names)")
            for span in spans {
                #expect(span.parent == "request-1", "\(span.name)")
                #expect(span.kind == .client, "\(span.name)")
                #expect(span.attributes["db.system.name"] == system, "\(span.name)")
                if span.name.contains(" ") {
                    #expect(
                        span.attributes["db.operation.name"] == span.name.split(separator: " ").first.map(String.init))
                    #expect(
                        span.attributes["db.collection.name"] == span.name.split(separator: " ").last.map(String.init))
                }
                let text = try #require(span.attributes["db.query.text"], "\(span.name)")
                // Bound values stay out: the token's hash, the new name.
                #expect(!text.contains(c.token.tokenHash) && !text.contains("Renamed"), "\(text)")
                #expect(span.ended)
            }
        }
    }

    @Test func withTracingOffTheStorageMakesNoSpan() async throws {
        let tracer = RecordingTracer()
        let folder = ScratchDirectory("spans-off")
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("gatehouse.sqlite").path
        try await MigratedTemplate.copy(to: path)
        let storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger)
        do {
            try await ServiceContext.withValue(tracer.parent("request-1")) {
                let c = try await CallerScenario.make(1, on: storage, now: Self.now)
                _ = try await storage.callerRecords.callerRecords(tokenHash: c.token.tokenHash)
            }
            #expect(tracer.spans.isEmpty)
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }

    /// Storage on `system` whose statements' spans go to `tracer`, closed and removed after `body`.
    private func withTracedStorage(
        _ system: String, tracer: RecordingTracer, _ body: (Storage) async throws -> Void
    ) async throws {
        let spans = DatabaseSpans(system: system, tracer: tracer)
        let storage: Storage
        let cleanup: () async throws -> Void
        if system == "sqlite" {
            let folder = ScratchDirectory("spans")
            let path = folder.url.appendingPathComponent("gatehouse.sqlite").path
            try await MigratedTemplate.copy(to: path)
            storage = try await SQLStorage.openSQLite(path: path, logger: StorageBackends.logger, spans: spans)
            cleanup = { folder.remove() }
        } else {
            let url = try await PostgresTestDatabase.create()
            storage = try await PostgresStorage.open(
                url: url, logger: StorageBackends.logger, options: .init(maximumConnections: 2), spans: spans)
            cleanup = { try await PostgresTestDatabase.drop(url) }
        }
        do {
            try await body(storage)
        } catch {
            try? await storage.shutdown()
            try? await cleanup()
            throw error
        }
        try await storage.shutdown()
        try await cleanup()
    }
}

/// A tracer that keeps what it was asked to record; a span's context carries its id, so a child names its parent.
final class RecordingTracer: Tracer, Sendable {
    struct Recorded: Sendable {
        var name: String
        var kind: SpanKind
        var parent: String?
        var attributes: [String: String]
        var ended: Bool
    }

    private let recorded = NIOLockedValueBox<[RecordingSpan]>([])

    var spans: [Recorded] { recorded.withLockedValue { $0 }.map(\.snapshot) }

    /// A context as a request span's would be, with `id` as that span's id.
    func parent(_ id: String) -> ServiceContext {
        var context = ServiceContext.topLevel
        context.recordedSpanID = id
        return context
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordingSpan {
        let parent = context()
        let span = RecordingSpan(name: operationName, kind: kind, parent: parent)
        recorded.withLockedValue { $0.append(span) }
        return span
    }

    func forceFlush() {}
    func extract<Carrier, Extract: Extractor>(_: Carrier, into _: inout ServiceContext, using _: Extract)
    where Extract.Carrier == Carrier {}
    func inject<Carrier, Inject: Injector>(_: ServiceContext, into _: inout Carrier, using _: Inject)
    where Inject.Carrier == Carrier {}
}

final class RecordingSpan: Span, Sendable {
    private let state: NIOLockedValueBox<RecordingTracer.Recorded>
    let context: ServiceContext

    init(name: String, kind: SpanKind, parent: ServiceContext) {
        state = NIOLockedValueBox(
            .init(name: name, kind: kind, parent: parent.recordedSpanID, attributes: [:], ended: false))
        var context = parent
        context.recordedSpanID = UUID().uuidString
        self.context = context
    }

    var snapshot: RecordingTracer.Recorded { state.withLockedValue { $0 } }

    var operationName: String {
        get { state.withLockedValue { $0.name } }
        set { state.withLockedValue { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { SpanAttributes() }
        set {
            var plain: [String: String] = [:]
            newValue.forEach { key, value in
                if case .string(let text) = value { plain[key] = text } else { plain[key] = "\(value)" }
            }
            state.withLockedValue { $0.attributes.merge(plain) { _, new in new } }
        }
    }

    var isRecording: Bool { true }
    func setStatus(_ status: SpanStatus) {}
    func addEvent(_ event: SpanEvent) {}
    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {}
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        state.withLockedValue { $0.ended = true }
    }
}

private enum RecordedSpanIDKey: ServiceContextKey {
    typealias Value = String
}

extension ServiceContext {
    fileprivate var recordedSpanID: String? {
        get { self[RecordedSpanIDKey.self] }
        set { self[RecordedSpanIDKey.self] = newValue }
    }
}
