import GatehouseCore
import GatehouseStorage
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// The one start-up sequence of a Gatehouse server, shared by `gatehouse serve` (``GatehouseServerRunner``) and
/// the emulator a test starts in its own process (GatehouseTesting's `GatehouseEmulator`), so that the emulator
/// people test against is the server they deploy.
///
/// It runs in two steps around the moment the port is bound: ``prepare(_:)`` refuses an exposed development
/// server, binds nothing yet but builds the HTTP application (answering 503 until ready) and the service group;
/// ``bringUp(_:port:)`` then opens storage, restores the console's clock, checks production safety, loads the
/// scenario or seeds development data, starts the cache feed, opens the gate, and starts the callback outbox and
/// the journal writer. Only how the group runs differs: `serve` runs it in its own task tree until a signal; the
/// emulator runs it in the background until the test stops it.
package enum ServerStartup {
    /// What a caller may choose; everything else is the sequence's.
    package struct Options: Sendable {
        package var configuration: GatehouseConfiguration
        package var logger: Logger
        /// SIGTERM and SIGINT stop the group gracefully (`serve`); false when something else stops it.
        package var stopsOnSignals = true
        /// Loaded into the empty database instead of the development seed.
        package var scenario: ScenarioFile?
        /// The clock the console and the admin API move. nil: in development mode, the system clock with the
        /// offset saved by an earlier run; in production, the system clock alone. The emulator fixes its start.
        package var clockControl: AdjustableClock?
        package var random: any RandomSource = SystemRandomSource()
        /// nil: bcrypt at the configuration's cost (``GatehouseConfiguration/effectivePasswordCost``).
        package var passwords: (any PasswordHasher)?
        /// Traces (issue 42): `serve` bootstraps swift-otel's exporter when `otlp_endpoint` is set; an in-process
        /// server passes its own tracer, or none (the default: no spans, no tracing middleware).
        package var tracing: ServerTracing?

        package init(configuration: GatehouseConfiguration, logger: Logger) {
            self.configuration = configuration
            self.logger = logger
        }
    }

    /// The HTTP side and the service group, before storage opens.
    package struct Prepared: Sendable {
        package let options: Options
        package let group: ServiceGroup
        let gate: StartupGate
        let bound: BoundPort
        let pool: DatabaseConnectionPool?
        let pages: PageRenderer

        /// The port once the server listens; throws when it stopped before binding.
        package func boundPort() async throws -> Int { try await bound.value() }

        /// Tells ``boundPort()`` that the group ended before it bound (or why it failed).
        package func groupEnded(_ error: (any Error)?) {
            bound.fulfil(.failure(error ?? ServerStoppedBeforeBindingError()))
        }
    }

    /// A server that answers requests.
    package struct Started: Sendable {
        package let services: GatehouseServices
        /// The development seed it made or found; nil in production or when a scenario was loaded.
        package let seed: DevSeed?
    }

    /// Step one: the checks that need no database, the application bound to the configured address (the gate
    /// answers 503 meanwhile) and the group that will run it, with PostgreSQL's pool first so it closes last.
    package static func prepare(_ options: Options) async throws -> Prepared {
        let configuration = options.configuration, logger = options.logger
        try GatehouseServerRunner.checkExposure(configuration, logger: logger)
        let gate = StartupGate()
        let bound = BoundPort()
        let pages = try await PageRenderer.load(devMode: configuration.isDevelopment)
        let app = Application(
            responder: gate, server: try GatehouseApp.serverBuilder(configuration),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Gatehouse"),
            onServerRunning: { channel in bound.fulfil(.success(channel.localAddress?.port ?? configuration.port)) },
            logger: logger)
        let pool = try configuration.databaseLocation.makeConnectionPool(logger: logger)
        // Services stop in reverse order: the pool closes only after the last request has drained, and the span
        // exporter, first of all, flushes after the last request's and outbox attempt's spans have ended.
        var groupConfiguration = ServiceGroupConfiguration(
            services: (options.tracing?.exporter.map { [.init(service: $0)] } ?? [])
                + (pool.map { [.init(service: $0)] } ?? []) + [.init(service: app)],
            gracefulShutdownSignals: options.stopsOnSignals ? [.sigterm, .sigint] : [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = GatehouseServerRunner.drainTimeout
        return Prepared(
            options: options, group: ServiceGroup(configuration: groupConfiguration), gate: gate, bound: bound,
            pool: pool, pages: pages)
    }

    /// Step two, once the port is bound (so every URL the server builds names it): storage, clock, safety,
    /// data, then the gate opens and the background services start. On failure storage is closed again; the
    /// caller stops the group.
    package static func bringUp(_ prepared: Prepared, port: Int) async throws -> Started {
        var options = prepared.options
        options.configuration.port = port
        let services = try await GatehouseServerRunner.services(options, pool: prepared.pool)
        let seed: DevSeed?
        do {
            try await GatehouseServerRunner.checkProductionSafety(services)
            if let scenario = options.scenario {
                try await ScenarioLoader(services: services).loadAtStartup(scenario.scenario, file: scenario.file)
                seed = nil
            } else {
                seed =
                    options.configuration.isDevelopment ? try await DevSeeder(services: services).seedIfNeeded() : nil
            }
        } catch {
            try? await services.storage.shutdown()
            throw error
        }
        let group = prepared.group
        // The caches come on once the feed watches for other processes' and nodes' writes; until then (and
        // after it stops) requests read the database.
        if let feed = services.storage.invalidationFeed {
            await group.addServiceUnlessShutdown(CacheInvalidationService(feed: feed))
        }
        prepared.gate.open(with: GatehouseApp.router(services: services, pages: prepared.pages).buildResponder())
        // Delivers due app callbacks (deauthorize, data deletion), including retries left by an earlier run;
        // it stops with the group, before the database closes.
        let tracer = services.tracer
        await group.addServiceUnlessShutdown(services.outboxWorker.traced(by: tracer))
        // Sends the mail outbox's messages (issue 32) when a sendmail command is configured; otherwise they are
        // only kept, for /console/mail and the admin API.
        if let mailWorker = services.mailWorker { await group.addServiceUnlessShutdown(mailWorker.traced(by: tracer)) }
        if let writer = services.journalTableWriter { await group.addServiceUnlessShutdown(writer) }
        // Sends Webhooks notifications as their batching windows end, retries included (issue 42).
        if let worker = services.webhookWorker { await group.addServiceUnlessShutdown(worker.traced(by: tracer)) }
        // Events (issue 42): POSTed to the configured sinks, expired tokens swept, old events pruned.
        if let worker = services.eventSinkWorker { await group.addServiceUnlessShutdown(worker.traced(by: tracer)) }
        if let events = services.storage.events {
            await group.addServiceUnlessShutdown(EventHousekeeping(services: services, store: events))
        }
        // Deletes mail and account codes past `mail.retention_days`.
        await group.addServiceUnlessShutdown(AccountMailRetention(services: services))
        // The seed file tells clients where the server is, so it is written only once requests are served.
        if let seed { try? DevSeeder(services: services).write(seed) }
        return Started(services: services, seed: seed)
    }
}
