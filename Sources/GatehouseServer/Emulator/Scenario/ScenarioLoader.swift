import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// Checks a scenario against the server and applies it through the ordinary stores.
///
/// Everything is validated first (the file by ``ScenarioParser``, conflicts with the server by ``ScenarioPlan``),
/// and nothing is written while any problem remains: a bad file changes nothing.
package struct ScenarioLoader: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// What an apply did (or, for a check, would do), and the ids and secrets tests need.
    package struct Outcome: Sendable {
        package var changes: [ScenarioChange]
        package var applied: Bool
        package var apps: [AppRecord]
        package var people: [(key: String, id: String, email: String)]
    }

    /// `serve --scenario` found a database that already holds something else.
    package struct NotEmptyError: Error, CustomStringConvertible {
        package var description: String
    }

    /// The differences between `scenario` and the server.
    package func plan(_ scenario: Scenario, file: String) async throws -> ScenarioPlan {
        let snapshot = try await ScenarioSnapshot.read(scenario, services: services)
        return makePlan(scenario, snapshot, file: file, now: scenarioNow(scenario))
    }

    /// Applies `scenario` (or, with `dryRun`, only works out what it would change).
    /// - Throws: ``ScenarioErrors`` when the server holds something the file contradicts; nothing is written then.
    @discardableResult
    package func apply(_ scenario: Scenario, file: String, dryRun: Bool = false) async throws -> Outcome {
        let now = scenarioNow(scenario)
        let plan = makePlan(
            scenario, try await ScenarioSnapshot.read(scenario, services: services), file: file, now: now)
        guard plan.problems.isEmpty else { throw ScenarioErrors(plan.problems) }
        if !dryRun, !plan.changes.isEmpty {
            try await verifyCallbacks(plan.changes, file: file)
            try await perform(plan.changes, now: now)
            services.logger.info("scenario applied", metadata: ["file": "\(file)", "changes": "\(plan.changes.count)"])
        }
        var apps: [AppRecord] = []
        for app in scenario.apps {
            if let record = try await services.storage.apps.find(id: app.id) { apps.append(record) }
        }
        return Outcome(
            changes: plan.changes, applied: !dryRun, apps: apps,
            people: scenario.people.map { ($0.key, $0.id, $0.email) })
    }

    /// Loads `scenario` at start-up: into an empty database, or nowhere when the database already matches it (a
    /// restart on the same data folder). Any other database is refused, so a typo in `--data-dir` never merges
    /// fixtures into real data.
    package func loadAtStartup(_ scenario: Scenario, file: String) async throws {
        let snapshot = try await ScenarioSnapshot.read(scenario, services: services)
        let now = scenarioNow(scenario)
        let plan = makePlan(scenario, snapshot, file: file, now: now)
        guard plan.problems.isEmpty else { throw ScenarioErrors(plan.problems) }
        if plan.changes.isEmpty { return }
        guard snapshot.isEmpty else {
            throw NotEmptyError(
                description:
                    "the database already holds data that differs from \(file) (\(plan.changes.count) difference(s), e.g. \(plan.changes[0])); "
                    + "start with an empty --data-dir, or use `gatehouse scenario apply` against the running server")
        }
        try await verifyCallbacks(plan.changes, file: file)
        try await perform(plan.changes, now: now)
        services.logger.info("scenario loaded", metadata: ["file": "\(file)", "changes": "\(plan.changes.count)"])
    }

    /// The server's time once the scenario's clock offset applies: grants, tokens and password changes start then,
    /// so a clock offset does not age them on arrival.
    private func scenarioNow(_ scenario: Scenario) -> Date {
        let now = services.clock.now()
        guard let offset = scenario.clockOffsetSeconds, let clock = services.clockControl else { return now }
        return now.addingTimeInterval(Double(offset) - clock.currentOffset)
    }

    /// Sends the verification request of each subscription that needs one (``ScenarioChange/Verification``),
    /// before anything is written: a callback that does not echo the challenge is a problem at the file's line,
    /// and the file changes nothing, as for every other problem. A check (`dryRun`) calls no callback.
    private func verifyCallbacks(_ changes: [ScenarioChange], file: String) async throws {
        var problems: [ScenarioError] = []
        for change in changes {
            guard case .subscribe(let record, let verification?) = change.action else { continue }
            do {
                try await WebhookSubscriptions(services: services).verify(
                    url: record.callbackURL, token: record.verifyToken)
            } catch let refused as WebhookSubscriptionError {
                problems.append(
                    ScenarioError(
                        file: file, location: verification.at, path: verification.path,
                        message: ScenarioParser.refusal(refused)
                            + " (verify: false keeps it unverified, in development mode)"))
            }
        }
        guard problems.isEmpty else { throw ScenarioErrors(problems) }
    }

    private func makePlan(_ scenario: Scenario, _ snapshot: ScenarioSnapshot, file: String, now: Date) -> ScenarioPlan {
        let random = services.random, accounts = services.accounts
        return ScenarioPlan.make(
            scenario, against: snapshot, file: file, now: now, newSecret: { random.hex(16) },
            place: accounts.place(named:))
    }

    /// - Parameter now: the time the plan was made for (``scenarioNow(_:)``).
    private func perform(_ changes: [ScenarioChange], now: Date) async throws {
        let storage = services.storage
        for change in changes {
            switch change.action {
            case .setClockOffset(let offset):
                try await storage.emulator.setSetting(ClockControl.offsetSetting, offset == 0 ? nil : String(offset))
                try await ClockControl(services: services).restore()
            case .createApp(let app): try await storage.apps.create(app)
            case .updateApp(let app):
                // A new secret goes through the console's path, which revokes the app tokens the old one made.
                if let stored = try await storage.apps.find(id: app.id), stored.secret != app.secret {
                    try await services.accounts.changeSecret(of: app, to: app.secret)
                } else {
                    try await storage.apps.update(app)
                }
            case .setRole(let appID, let userID, let role):
                try await storage.apps.setRole(appID: appID, userID: userID, role: role)
            case .createUser(var user, let password):
                user.passwordHash = try await services.passwords.hash(password)
                try await storage.users.create(user)
            case .updateUser(let user, let password):
                // The account state goes through its own path (entering one ends sessions, as everywhere): the
                // other fields are saved under the stored state first.
                var saved = user
                if let stored = try await storage.users.find(id: user.id) { saved.accountState = stored.accountState }
                // A new password signs the person out everywhere, as every password change does.
                if let password {
                    // At the plan's time: a token the same file adds is then not older than the change.
                    saved = try await services.accounts.changePassword(of: saved, to: password, at: now)
                } else {
                    try await storage.users.update(saved)
                }
                try await services.accounts.setAccountState(of: saved, to: user.accountState, at: now)
            case .setTwoFactor(let userID, let secret):
                guard let user = try await storage.users.find(id: userID) else { continue }
                try await services.accounts.enableTwoFactor(for: user, secret: secret)
            case .assignScopedID(let appID, let userID, let scopedID):
                try await storage.users.assignScopedID(appID: appID, userID: userID, scopedID: scopedID)
            case .befriend(let a, let b): try await storage.friendships.befriend(a, b, at: services.clock.now())
            case .saveGrant(let grant): try await storage.grants.save(grant)
            case .insertToken(let token): try await storage.tokens.insert(token)
            case .setTokenExpiry(let id, let expiresAt):
                try await storage.tokens.setExpiry(id: id, expiresAt: expiresAt)
            case .putInjection(let injection):
                _ = try await storage.emulator.deleteInjection(id: injection.id)
                try await storage.emulator.insertInjection(injection)
            case .subscribe(let subscription, _): try await storage.webhooks?.saveSubscription(subscription)
            }
        }
    }
}

/// A parsed scenario with the name of its file, for `gatehouse serve --scenario`.
package struct ScenarioFile: Sendable {
    package var scenario: Scenario
    package var file: String

    package init(scenario: Scenario, file: String) {
        self.scenario = scenario
        self.file = file
    }
}
