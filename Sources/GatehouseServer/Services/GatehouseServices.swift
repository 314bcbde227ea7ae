import GatehouseCore
import Foundation
import Logging
import NIOSSL
import Tracing

/// Everything request handlers depend on, injected once when the application is built.
///
/// There are no globals in the server: tests build their own `GatehouseServices` with an
/// `AdjustableClock`, a cheap password hasher and a temporary database.
package final class GatehouseServices: Sendable {
    // A class, not a struct: every endpoint value (`UserEndpoints(services:)`, `TokenService`, …) holds the
    // services, several times per request, and a class is passed with one retain where a struct of a dozen
    // existentials (the storage alone holds twenty) costs a retain per field. Immutable, so sharing is safe;
    // a test that wants other parts builds other services.
    package let configuration: GatehouseConfiguration
    /// ``GatehouseConfiguration/baseURL``, worked out once: every `/me` that renders a link or a picture reads it.
    package let baseURL: String
    package let storage: Storage
    package let clock: any GatehouseClock
    package let random: any RandomSource
    package let passwords: any PasswordHasher
    package let callbacks: any AppCallbackNotifier
    /// How callbacks reach apps' URLs (the outbox's HTTP client).
    package let callbackTransport: any CallbackTransport
    package let logger: Logger
    /// Prometheus counters and timers (`/metrics`); injected, never the global `MetricsSystem`.
    package let metrics: GatehouseMetrics
    /// id_token signing keys.
    package let keyRing: KeyRing
    /// The clock again, when it may be moved from outside (development mode's clock control); nil otherwise.
    package let clockControl: AdjustableClock?
    /// Wakes the callback worker when a callback is queued.
    package let outboxDoorbell: OutboxDoorbell
    /// How webhook verification requests and notifications reach apps (the callbacks' guarded client).
    package let webhookTransport: any WebhookTransport
    /// The outbox of Webhooks notifications; nil when the storage keeps no webhooks.
    package let webhookOutbox: WebhookOutbox?
    /// The request journal of this node (`/console/activity`, `/admin/api/v1/journal`, `gatehouse logs`); recording
    /// only while ``GatehouseConfiguration/journalEnabled``.
    package let journal: RequestJournal
    /// Entries waiting for the `request_journal` table (`--journal-table`); nil when the table is not used.
    package let journalBuffer: JournalBuffer?
    /// Where what happens is announced to operators (issue 42): the `events` table and the configured sinks.
    package let events: any EventRecorder
    /// Wakes the event sinks' worker when a delivery is queued.
    package let eventDoorbell: OutboxDoorbell
    /// How events reach the sinks.
    package let eventSinkTransport: any EventSinkTransport
    /// The tracer of requests' and outbox attempts' spans (issue 42, ``ServerTracing``); nil: traces are off and
    /// no request pays for them.
    package let tracer: (any Tracer)?

    package init(
        configuration: GatehouseConfiguration, storage: Storage, clock: any GatehouseClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), passwords: any PasswordHasher = BcryptPasswordHasher(),
        callbacks: (any AppCallbackNotifier)? = nil, logger: Logger = Logger(label: "gatehouse"),
        clockControl: AdjustableClock? = nil,
        callbackTransport: (any CallbackTransport)? = nil,
        metrics: GatehouseMetrics = GatehouseMetrics(),
        journalSink: (any JournalSink)? = nil,
        events: (any EventRecorder)? = nil,
        eventSinkTransport: (any EventSinkTransport)? = nil,
        webhookTransport: (any WebhookTransport)? = nil,
        tracer: (any Tracer)? = nil
    ) {
        self.tracer = tracer
        let doorbell = OutboxDoorbell()
        let eventDoorbell = OutboxDoorbell()
        self.eventDoorbell = eventDoorbell
        // `outbound.*`, once for every outbound request: the CA file was checked when the configuration was loaded;
        // one that cannot be read now trusts only the system's roots (its receivers fail, nothing else is trusted).
        var outboundTLS: TLSConfiguration?
        do {
            outboundTLS = try OutboundTrust.tlsConfiguration(configuration.outbound)
        } catch {
            logger.error("outbound.ca_file not used", metadata: ["error": "\(error)"])
        }
        let outboundRules = CallbackDestinationRules.forMode(configuration)
        self.eventSinkTransport = eventSinkTransport ?? HTTPEventSinkTransport(tlsConfiguration: outboundTLS)
        self.events =
            events
            ?? EventLog(
                store: storage.events, sinks: storage.eventDeliveries == nil ? [] : configuration.eventSinks,
                clock: clock, random: random, node: EventLog.nodeName(configuration), logger: logger,
                doorbell: eventDoorbell)
        // With --journal-table the entries also gather for ``JournalTableWriter``.
        let buffer =
            configuration.journalTable && configuration.journalEnabled && storage.journal != nil ? JournalBuffer() : nil
        self.journalBuffer = buffer
        let journal = RequestJournal(
            capacity: configuration.journalSize, enabled: configuration.journalEnabled, sink: journalSink ?? buffer)
        self.journal = journal
        // Production callbacks: https only, public addresses only, no redirects (``GuardedCallbackTransport``).
        let callbackTransport =
            callbackTransport ?? GuardedCallbackTransport(rules: outboundRules, tlsConfiguration: outboundTLS)
        var outbox = CallbackOutbox(
            storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        let callbacks = callbacks ?? OutboxAppCallbackNotifier(outbox: outbox, doorbell: doorbell)
        // Webhooks go where callbacks go, by the same address rules.
        let webhookTransport =
            webhookTransport ?? (callbackTransport as? any WebhookTransport)
            ?? GuardedCallbackTransport(rules: outboundRules, tlsConfiguration: outboundTLS)
        self.webhookTransport = webhookTransport
        var webhookOutbox: WebhookOutbox?
        if let store = storage.webhooks {
            webhookOutbox = WebhookOutbox(
                store: store, storage: storage, clock: clock, random: random, transport: webhookTransport,
                logger: logger, journal: journal)
        }
        self.webhookOutbox = webhookOutbox
        self.outboxDoorbell = doorbell
        self.configuration = configuration
        self.baseURL = configuration.baseURL
        // Consent events (issue 42) hear grant changes through the same announcement as the webhooks. They watch
        // every app's grants, so listed first they answer `watchesGrants` before the webhooks ask the database.
        var listeners: [any PersonChangeListener] =
            storage.events != nil || events != nil ? [ConsentEvents(events: self.events)] : []
        // Every profile and grant write, whichever path makes it, is heard by the webhooks (issue 42).
        if let webhookOutbox { listeners.append(WebhookAnnouncer(outbox: webhookOutbox)) }
        let announced = listeners.isEmpty ? storage : storage.announcingChanges(to: PersonChangeListeners(listeners))
        // Every token stored or revoked, whichever path does it, is an event (issue 42).
        self.storage = announced.announcingTokenEvents(to: self.events)
        self.clock = clock
        self.random = random
        self.passwords = passwords
        self.callbacks = callbacks
        self.callbackTransport = callbackTransport
        self.logger = logger
        self.metrics = metrics
        self.clockControl = clockControl
        self.keyRing = KeyRing(store: storage.signingKeys, clock: clock)
    }

    package var tokens: TokenService { TokenService(services: self) }
    /// The persistent outbox of callbacks to apps (deauthorize, data deletion).
    package var outbox: CallbackOutbox {
        var outbox = CallbackOutbox(
            storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        return outbox
    }
    /// The service that delivers the outbox's callbacks, for the server's service group.
    package var outboxWorker: OutboxWorker<CallbackDelivery> {
        OutboxWorker(outbox: outbox.delivering, doorbell: outboxDoorbell)
    }
    /// The service that POSTs events to the configured sinks; nil when none is configured.
    package var eventSinkWorker: OutboxWorker<EventSinkDelivery>? {
        guard !configuration.eventSinks.isEmpty, let store = storage.eventDeliveries else { return nil }
        let delivery = EventSinkDelivery(
            sinks: configuration.eventSinks, transport: eventSinkTransport, logger: logger)
        return OutboxWorker(
            outbox: Outbox(store: store, delivery: delivery, policy: .eventSinks, clock: clock, logger: logger),
            doorbell: eventDoorbell)
    }
    /// The service that sends Webhooks notifications, one pass per batching window (``WebhookOutbox/batchWindow``).
    package var webhookWorker: OutboxWorker<WebhookDelivery>? {
        webhookOutbox.map {
            OutboxWorker(outbox: $0.delivering, period: .seconds(WebhookOutbox.batchWindow), doorbell: webhookDoorbell)
        }
    }
    /// Wakes the webhook worker (a resend from the console).
    package let webhookDoorbell = OutboxDoorbell()
    /// The service that writes the journal to its table and prunes it, when `--journal-table` is on.
    package var journalTableWriter: JournalTableWriter? {
        guard let journalBuffer, let store = storage.journal else { return nil }
        return JournalTableWriter(
            buffer: journalBuffer, store: store, configuration: configuration, clock: clock, logger: logger)
    }
    /// App and people management shared by the CLI, seeding and the test-user API.
    package var accounts: AccountService { AccountService(services: self) }
    /// Wakes the mail worker when a message is queued.
    package let mailDoorbell = OutboxDoorbell()
    /// The browser sessions whose activity this node recorded lately (``SessionActivityMiddleware``).
    package let sessionTouches = RecentTouches(interval: SessionActivityMiddleware.interval)
    /// The mail outbox (issue 32); nil when the storage has no mail table. It sends through
    /// `mail.sendmail_command` when one is configured, and otherwise only keeps the messages.
    package var mail: MailOutbox? {
        guard let store = storage.mail else { return nil }
        let transport = configuration.mail.sendmailArguments.map {
            SendmailTransport(arguments: $0, envelopeFrom: MailMessageFormat.address(configuration.mail.from))
                as any MailTransport
        }
        return MailOutbox(
            store: store, clock: clock, random: random, transport: transport, configuration: configuration.mail,
            logger: logger,
            journal: journal)
    }
    /// The service that sends the mail outbox's messages, for the server's service group; nil when they are only
    /// kept (no `mail.sendmail_command`).
    package var mailWorker: OutboxWorker<MailDelivery>? {
        mail?.delivering.map { OutboxWorker(outbox: $0, doorbell: mailDoorbell) }
    }
}
