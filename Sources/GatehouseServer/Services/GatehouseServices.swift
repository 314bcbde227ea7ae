import GatehouseCore
import Foundation
import Logging

/// Everything request handlers depend on, injected once when the application is built.
///
/// There are no globals in the server: tests build their own `GatehouseServices` with an
/// `AdjustableClock`, a cheap password hasher and a temporary database.
public struct GatehouseServices: Sendable {
    public var configuration: GatehouseConfiguration
    public var storage: Storage
    public var clock: any GatehouseClock
    public var random: any RandomSource
    public var passwords: any PasswordHasher
    public var callbacks: any AppCallbackNotifier
    /// How callbacks reach apps' URLs (the outbox's HTTP client).
    public var callbackTransport: any CallbackTransport
    public var logger: Logger
    /// Prometheus counters and timers (`/metrics`); injected, never the global `MetricsSystem`.
    public var metrics: GatehouseMetrics
    /// id_token signing keys, shared by every copy of these services.
    public let keyRing: KeyRing
    /// The clock again, when it may be moved from outside (development mode's clock control); nil otherwise.
    public var clockControl: AdjustableClock?
    /// Wakes the callback worker when a callback is queued (shared by every copy of these services).
    public let outboxDoorbell = OutboxDoorbell()
    /// The request journal of this node (`/console/activity`, `/admin/api/journal`, `gatehouse logs`), shared by
    /// every copy of these services; recording only while ``GatehouseConfiguration/journalEnabled``.
    public let journal: RequestJournal
    /// Entries waiting for the `request_journal` table (`--journal-table`); nil when the table is not used.
    public let journalBuffer: JournalBuffer?

    public init(
        configuration: GatehouseConfiguration, storage: Storage, clock: any GatehouseClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), passwords: any PasswordHasher = BcryptPasswordHasher(),
        callbacks: (any AppCallbackNotifier)? = nil, logger: Logger = Logger(label: "gatehouse"),
        clockControl: AdjustableClock? = nil,
        callbackTransport: (any CallbackTransport)? = nil,
        metrics: GatehouseMetrics = GatehouseMetrics(),
        journalSink: (any JournalSink)? = nil
    ) {
        self.metrics = metrics
        // With --journal-table the entries also gather for ``JournalTableWriter``.
        let buffer = configuration.journalTable && configuration.journalEnabled && storage.journal != nil ? JournalBuffer() : nil
        self.journalBuffer = buffer
        let journal = RequestJournal(capacity: configuration.journalSize, enabled: configuration.journalEnabled, sink: journalSink ?? buffer)
        self.journal = journal
        self.clockControl = clockControl
        // Production callbacks: https only, public addresses only, no redirects (``GuardedCallbackTransport``).
        let callbackTransport = callbackTransport ?? GuardedCallbackTransport(rules: .forMode(configuration))
        self.callbackTransport = callbackTransport
        self.configuration = configuration
        self.storage = storage
        self.clock = clock
        self.random = random
        self.passwords = passwords
        var outbox = CallbackOutbox(storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        self.callbacks = callbacks ?? OutboxAppCallbackNotifier(outbox: outbox, doorbell: outboxDoorbell)
        self.logger = logger
        self.keyRing = KeyRing(store: storage.signingKeys, clock: clock)
    }

    package var tokens: TokenService { TokenService(services: self) }
    /// The persistent outbox of callbacks to apps (deauthorize, data deletion).
    public var outbox: CallbackOutbox {
        var outbox = CallbackOutbox(storage: storage, clock: clock, random: random, transport: callbackTransport, logger: logger)
        outbox.journal = journal
        return outbox
    }
    /// The service that delivers the outbox's callbacks, for the server's service group.
    public var outboxWorker: CallbackOutboxWorker { CallbackOutboxWorker(outbox: outbox, doorbell: outboxDoorbell) }
    /// The service that writes the journal to its table and prunes it, when `--journal-table` is on.
    public var journalTableWriter: JournalTableWriter? {
        guard let journalBuffer, let store = storage.journal else { return nil }
        return JournalTableWriter(buffer: journalBuffer, store: store, configuration: configuration, clock: clock, logger: logger)
    }
    /// App and people management shared by the CLI, seeding and the test-user API.
    public var accounts: AccountService { AccountService(services: self) }
}
