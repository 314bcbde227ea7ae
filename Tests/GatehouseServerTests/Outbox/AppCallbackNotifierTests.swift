import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import Hummingbird
import Logging
import NIOCore
import Testing
import GatehouseTestSupport

/// The default notifier: app removal goes into the persistent outbox and is POSTed to the app's real endpoint.
@Suite struct AppCallbackNotifierTests {
    @Test func deauthorizeCallbackGetsAVerifiableSignedRequestAndIsRetried() async throws {
        let inbox = AppBackendInbox(failFirst: 1)
        try await AppBackendInbox.serve(inbox) { url in
            let env = try await OutboxTestEnvironment.make(deauthorizeURL: url, dataDeletionURL: nil)
            defer { env.scratch.remove() }
            do {
                // The server's worker, as its service group runs it; cancelled at the end of the test.
                let worker = Task { try await env.services.outboxWorker.run() }
                defer { worker.cancel() }
                let notifier = OutboxAppCallbackNotifier(
                    outbox: env.services.outbox, doorbell: env.services.outboxDoorbell)
                await notifier.appRemoved(app: env.app, scopedUserID: env.scopedID, at: env.clock.now())
                // The worker's first attempt, woken by the doorbell, fails; the outbox schedules the retry 30 s
                // later by the injected clock.
                // Bounded at ten minutes, as the suite's other waits for what must happen: on a loaded machine the
                // attempt can come after the worker's next period (5 s) rather than at the doorbell.
                var first: [String] = []
                let deadline = ContinuousClock.now + .seconds(600)
                while ContinuousClock.now < deadline {
                    first = await inbox.bodies
                    if first.count == 1,
                        try await env.services.storage.appCallbacks.due(
                            now: env.clock.now().addingTimeInterval(30), limit: 5
                        ).count == 1
                    {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(first.count == 1)
                env.clock.advance(by: 30)
                let delivered = await env.services.outbox.deliverDue()
                #expect(delivered.count == 1)
                #expect(delivered.first?.deliveredAt != nil)
                let forms = await inbox.forms()
                #expect(forms.count == 2)
                let payload = try SignedRequest.parse(forms.last?["signed_request"] ?? "", secret: env.app.secret)
                #expect(
                    payload.serialized()
                        == #"{"algorithm":"HMAC-SHA256","issued_at":1800000000,"user_id":"\#(env.scopedID)"}"#)
                #expect(throws: SignedRequestError.self) {
                    try SignedRequest.parse(forms.last?["signed_request"] ?? "", secret: "other")
                }
            } catch {
                try? await env.services.storage.shutdown()
                throw error
            }
            try await env.services.storage.shutdown()
        }
    }
}

/// Services with the real outbox (no recording notifier), an app with callback URLs, and one person.
struct OutboxTestEnvironment {
    let services: GatehouseServices
    let clock: AdjustableClock
    let app: AppRecord
    let user: UserRecord
    let scopedID: String
    /// The data directory; the test removes it once the last environment on it has shut down.
    let scratch: ScratchDirectory

    /// - Parameter scratch: an earlier environment's directory, to open its database again (a restart).
    static func make(
        deauthorizeURL: String?, dataDeletionURL: String?, scratch: ScratchDirectory? = nil,
        clock: AdjustableClock? = nil
    ) async throws -> OutboxTestEnvironment {
        let scratch = try scratch ?? ScratchDirectory.create("outbox")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let configuration = GatehouseConfiguration(
            port: 0, dataDirectory: scratch.path, publicURL: "http://gatehouse.test")
        let storage = try await SQLStorage.openSQLite(path: configuration.databasePath, logger: logger)
        let clock = clock ?? AdjustableClock(fixed: Date(timeIntervalSince1970: 1_800_000_000))
        let services = GatehouseServices(
            configuration: configuration, storage: storage, clock: clock, passwords: BcryptPasswordHasher(cost: 4),
            logger: logger)
        if let app = try await storage.apps.list().first, let user = try await storage.users.list().first {
            return OutboxTestEnvironment(
                services: services, clock: clock, app: app, user: user,
                scopedID: try await storage.users.scopedID(appID: app.id, userID: user.id), scratch: scratch)
        }
        let app = try await services.accounts.createApp(
            name: "Callback App", redirectURIs: ["https://app.example.com/cb"],
            deauthorizeCallbackURL: deauthorizeURL, dataDeletionCallbackURL: dataDeletionURL)
        let user = try await services.accounts.createUser(
            NewUser(email: "carol@example.com", password: "carol-password", firstName: "Carol", lastName: "Cole"))
        return OutboxTestEnvironment(
            services: services, clock: clock, app: app, user: user,
            scopedID: try await storage.users.scopedID(appID: app.id, userID: user.id), scratch: scratch)
    }
}
