import Foundation
import GatehouseCore
import Logging
import ServiceLifecycle

/// Keeps the event stream: every `period` it records `token.expired` for the user tokens whose expiry passed
/// since the last sweep, and once an hour it prunes `events` by age and count (`events.retention_days`,
/// `events.max_rows`) together with finished sink deliveries.
///
/// The sweep's position is stored (`events.expiry_swept_until`), so a restart misses no expiry; each expired
/// token's event has an id made from the token's id, so two nodes sweeping the same window store it once.
package struct EventHousekeeping: Service {
    let services: GatehouseServices
    let store: any EventStore
    var period: Duration = .seconds(30)
    var prunePeriod: Duration = .seconds(3600)
    static let sweptSetting = "events.expiry_swept_until"

    package init(services: GatehouseServices, store: any EventStore) {
        self.services = services
        self.store = store
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastPrune = ContinuousClock.now - prunePeriod
            while !Task.isCancelled {
                await sweepExpiredTokens()
                if ContinuousClock.now - lastPrune >= prunePeriod {
                    await prune()
                    lastPrune = ContinuousClock.now
                }
                try? await Task.sleep(for: period)
            }
        }
    }

    /// Records `token.expired` for each user token that expired since the last sweep (the first sweep starts now).
    package func sweepExpiredTokens() async {
        let emulator = services.storage.emulator
        let now = services.clock.now()
        do {
            let stored = try await emulator.setting(Self.sweptSetting).flatMap(Double.init)
            guard let from = stored.map(Date.init(timeIntervalSince1970:)) else {
                try await emulator.setSetting(Self.sweptSetting, "\(Int64(now.timeIntervalSince1970))")
                return
            }
            guard from < now else { return }
            let limit = 500
            let expired = try await store.tokensExpired(after: from, upTo: now, limit: limit)
            for token in expired {
                await record(token)
            }
            // A full batch moves the position only as far as its last expiry; the next sweep takes the rest.
            let reached = expired.count == limit ? (expired.last?.expiresAt ?? now) : now
            try await emulator.setSetting(Self.sweptSetting, "\(Int64(reached.timeIntervalSince1970))")
        } catch {
            services.logger.error("expired tokens not swept", metadata: ["error": "\(error)"])
        }
    }

    private func record(_ token: TokenRecord) async {
        let details = ["token_id": token.id, "expired_at": GatehouseEvent.timeText(token.expiresAt ?? Date())]
        await services.events.record(
            .tokenExpired, id: "expired-" + token.id, appID: token.appID, personID: token.userID, details: details)
    }

    func prune() async {
        let configuration = services.configuration
        let cutoff = services.clock.now().addingTimeInterval(-TimeInterval(configuration.eventsRetentionDays) * 86_400)
        do {
            try await store.prune(olderThan: cutoff, keepingAtMost: configuration.eventsMaxRows)
        } catch {
            services.logger.error("events not pruned", metadata: ["error": "\(error)"])
        }
    }
}
