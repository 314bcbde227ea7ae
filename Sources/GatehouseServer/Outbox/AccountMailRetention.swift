import Foundation
import GatehouseCore
import Logging
import ServiceLifecycle

/// Deletes old mail and old account codes (issue 39, finding 5): messages created, and codes expired or used,
/// more than `mail.retention_days` ago (30 by default). A message still waiting for another attempt is kept
/// until it is sent or given up. Runs at start and then hourly on every node; the deletes are idempotent, so
/// nodes running it together do no harm.
package struct AccountMailRetention: Service {
    let services: GatehouseServices
    var period: Duration = .seconds(3600)

    package init(services: GatehouseServices) { self.services = services }

    /// Deletes what is past retention now; returns how many messages and codes went.
    @discardableResult
    func prune() async throws -> (mail: Int, codes: Int) {
        let days = TimeInterval(services.configuration.mail.retentionDays)
        let cutoff = services.clock.now().addingTimeInterval(-days * 86_400)
        let mail = try await services.storage.mail?.prune(createdBefore: cutoff) ?? 0
        let codes = try await services.storage.accountCodes?.prune(before: cutoff) ?? 0
        return (mail, codes)
    }

    package func run() async throws {
        guard services.storage.mail != nil || services.storage.accountCodes != nil else { return }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await prune()
                    if removed.mail + removed.codes > 0 {
                        services.logger.info(
                            "old mail and account codes deleted",
                            metadata: ["mail": "\(removed.mail)", "codes": "\(removed.codes)"])
                    }
                } catch {
                    services.logger.warning(
                        "old mail and account codes not deleted", metadata: ["error": "\(type(of: error))"])
                }
                try? await Task.sleep(for: period)
            }
        }
    }
}
