import GatehouseCore
import Foundation
import Logging

/// Everything request handlers depend on, injected once when the application is built.
///
/// There are no globals in the server: tests build their own `GatehouseServices` with an
/// `AdjustableClock`, a cheap password hasher and a temporary database.
package struct GatehouseServices: Sendable {
    /// The fields, behind one reference: every endpoint value (`UserEndpoints(services:)`, `TokenService`, …)
    /// holds a copy, and copying a dozen fields (the storage alone is twenty existentials) cost a retain each,
    /// several times per request (measured: about 3% of a hot `/me`). A copy is now one retain; a mutation of
    /// a shared copy copies the fields first, so the struct keeps its value semantics.
    private final class Fields: @unchecked Sendable {
        var configuration: GatehouseConfiguration
        var storage: Storage
        var clock: any GatehouseClock
        var random: any RandomSource
        var passwords: any PasswordHasher
        var callbacks: any AppCallbackNotifier
        var callbackTransport: any CallbackTransport
        var logger: Logger
        var metrics: GatehouseMetrics
        var clockControl: AdjustableClock?

        init(
            configuration: GatehouseConfiguration, storage: Storage, clock: any GatehouseClock, random: any RandomSource,
            passwords: any PasswordHasher, callbacks: any AppCallbackNotifier, callbackTransport: any CallbackTransport,
            logger: Logger, metrics: GatehouseMetrics, clockControl: AdjustableClock?
        ) {
            self.configuration = configuration
            self.storage = storage
            self.clock = clock
            self.random = random
            self.passwords = passwords
            self.callbacks = callbacks
            self.callbackTransport = callbackTransport
            self.logger = logger
            self.metrics = metrics
            self.clockControl = clockControl
        }

        func copy() -> Fields {
            Fields(
                configuration: configuration, storage: storage, clock: clock, random: random, passwords: passwords,
                callbacks: callbacks, callbackTransport: callbackTransport, logger: logger, metrics: metrics,
                clockControl: clockControl)
        }
    }

    private var fields: Fields

    /// Mutates the fields, copying them first when another copy of these services shares them.
    private mutating func update(_ change: (Fields) -> Void) {
        if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
        change(fields)
    }

    package var configuration: GatehouseConfiguration {
        get { fields.configuration }
        set { update { $0.configuration = newValue } }
    }
    package var storage: Storage {
        get { fields.storage }
        set { update { $0.storage = newValue } }
    }
    package var clock: any GatehouseClock {
        get { fields.clock }
        set { update { $0.clock = newValue } }
    }
    package var random: any RandomSource {
        get { fields.random }
        set { update { $0.random = newValue } }
    }
    package var passwords: any PasswordHasher {
        get { fields.passwords }
        set { update { $0.passwords = newValue } }
    }
    package var callbacks: any AppCallbackNotifier {
        get { fields.callbacks }
        set { update { $0.callbacks = newValue } }
    }
    /// How callbacks reach apps' URLs (the outbox's HTTP client).
    package var callbackTransport: any CallbackTransport {
        get { fields.callbackTransport }
        set { update { $0.callbackTransport = newValue } }
    }
    package var logger: Logger {
        get { fields.logger }
        set { update { $0.logger = newValue } }
    }
    /// Prometheus counters and timers (`/metrics`); injected, never the global `MetricsSystem`.
    package var metrics: GatehouseMetrics {
        get { fields.metrics }
        set { update { $0.metrics = newValue } }
    }
    /// id_token signing keys, shared by every copy of these services.
    package let keyRing: KeyRing
    /// The clock again, when it may be moved from outside (development mode's clock control); nil otherwise.
    package var clockControl: AdjustableClock? {
        get { fields.clockControl }
        set { update { $0.clockControl = newValue } }
    }
    /// Wakes the callback worker when a callback is queued (shared by every copy of these services).
    package let outboxDoorbell: OutboxDoorbell
    /// The request journal of this node (`/console/activity`, `/admin/api/journal`, `gatehouse logs`), shared by
    /// every copy of these services; recording only while ``GatehouseConfiguration/journalEnabled``.
    package let journal: RequestJournal
    /// Entries waiting for the `request_journal` table (`--journal-table`); nil when the table is not used.
    package let journalBuffer: JournalBuffer?

    package init(
        configuration: GatehouseConfiguration, storage: Storage, clock: any GatehouseClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), passwords: any PasswordHasher = BcryptPasswordHasher(),
        callbacks: (any AppCallbackNotifier)? = nil, logger: Logger = Logger(label: "gatehouse"),
        clockControl: AdjustableClock? = nil,
        callbackTransport: (any CallbackTransport)? = nil,
        metrics: GatehouseMetrics = GatehouseMetrics(),
        journalSink: (any JournalSink)? = nil
    ) {
        let doorbell = OutboxDoorbell()
        // With --journal-table the entries also gather for ``JournalTableWriter``.
        let buffer = configuration.journalTable && configuration.journalEnabled && storage.journal != nil ? JournalBuffer() : nil
        self.journalBuffer = buffer
        let journal = RequestJournal(capacity: configuration.journalSize, enabled: configuration.journalEnabled, sink: journalSink ?? buffer)
        self.journal = journal
        // Production callbacks: https only, public addresses only, no redirects (``GuardedCallbackTransport``).
        let callbackTransport = callbackTransport ?? GuardedCallbackTransport(rules: .forMode(configuration))
        var outbox = CallbackOutbox(storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        let callbacks = callbacks ?? OutboxAppCallbackNotifier(outbox: outbox, doorbell: doorbell)
        self.outboxDoorbell = doorbell
        self.fields = Fields(
            configuration: configuration, storage: storage, clock: clock, random: random, passwords: passwords,
            callbacks: callbacks, callbackTransport: callbackTransport, logger: logger, metrics: metrics,
            clockControl: clockControl)
        self.keyRing = KeyRing(store: storage.signingKeys, clock: clock)
    }

    package var tokens: TokenService { TokenService(services: self) }
    /// The persistent outbox of callbacks to apps (deauthorize, data deletion).
    package var outbox: CallbackOutbox {
        var outbox = CallbackOutbox(storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        return outbox
    }
    /// The service that delivers the outbox's callbacks, for the server's service group.
    package var outboxWorker: CallbackOutboxWorker { CallbackOutboxWorker(outbox: outbox, doorbell: outboxDoorbell) }
    /// The service that writes the journal to its table and prunes it, when `--journal-table` is on.
    package var journalTableWriter: JournalTableWriter? {
        guard let journalBuffer, let store = storage.journal else { return nil }
        return JournalTableWriter(buffer: journalBuffer, store: store, configuration: configuration, clock: clock, logger: logger)
    }
    /// App and people management shared by the CLI, seeding and the test-user API.
    package var accounts: AccountService { AccountService(services: self) }
    /// Wakes the mail worker when a message is queued (shared by every copy of these services).
    package let mailDoorbell = OutboxDoorbell()
    /// The mail outbox (issue 32); nil when the storage has no mail table. It sends through
    /// `mail.sendmail_command` when one is configured, and otherwise only keeps the messages.
    package var mail: MailOutbox? {
        guard let store = storage.mail else { return nil }
        let transport = configuration.mail.sendmailArguments.map {
            SendmailTransport(arguments: $0, envelopeFrom: MailMessageFormat.address(configuration.mail.from)) as any MailTransport
        }
        return MailOutbox(
            store: store, clock: clock, random: random, transport: transport, configuration: configuration.mail, logger: logger,
            journal: journal)
    }
}
