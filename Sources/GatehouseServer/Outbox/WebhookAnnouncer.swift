import Foundation
import GatehouseCore
import GatehouseProtocol
import Logging

/// Turns people's changes into Webhooks notifications: a profile change becomes a `user` entry for every app the
/// person uses that subscribed to a changed field it may see, and a grant change a `permissions` entry with
/// `granted`, `revoked`, `connected` or `disconnected`. Queued in the outbox, never sent from the request.
package struct WebhookAnnouncer: PersonChangeListener {
    /// Queues into open batches; the webhook worker, which passes every ``WebhookOutbox/batchWindow``, sends them
    /// (a doorbell would send each change alone).
    let outbox: WebhookOutbox

    package init(outbox: WebhookOutbox) {
        self.outbox = outbox
    }

    private var store: any WebhookStore { outbox.store }
    private var storage: Storage { outbox.storage }

    package func watchesGrants(appID: String) async -> Bool {
        (try? await store.subscriptions(appID: appID).contains { $0.object == .permissions && $0.active }) ?? false
    }

    package func profileChanged(from old: UserRecord, to new: UserRecord) async {
        let changed = WebhookUserChanges.changedFields(from: old, to: new)
        guard !changed.isEmpty else { return }
        do {
            let now = outbox.clock.now()
            for grant in try await storage.grants.grants(userID: new.id) {
                guard
                    let subscription = try await store.subscriptions(appID: grant.appID).first(where: {
                        $0.object == .user && $0.active
                    })
                else { continue }
                // Only what the person let this app see: an email change reaches an app granted `email`.
                let fields = WebhookUserChanges.visible(changed, granted: grant.granted).filter(subscription.covers)
                guard !fields.isEmpty else { continue }
                let scoped = try await storage.users.scopedID(appID: grant.appID, userID: new.id)
                try await outbox.enqueue(
                    WebhookEntry(scopedID: scoped, time: now, changedFields: fields), object: .user,
                    appID: grant.appID, url: subscription.callbackURL, at: now)
            }
        } catch {
            outbox.logger.error("webhook not queued", metadata: ["object": "user", "error": "\(error)"])
        }
    }

    package func grantChanged(from old: GrantRecord?, to new: GrantRecord?) async {
        guard let grant = new ?? old else { return }
        // A consent that changes no permission (every login after the first) reads no subscription.
        let changed = Self.changes(from: old, to: new)
        guard !changed.isEmpty else { return }
        do {
            guard
                let subscription = try await store.subscriptions(appID: grant.appID).first(where: {
                    $0.object == .permissions && $0.active
                })
            else { return }
            let changes = changed.filter { subscription.covers($0.field) }
            guard !changes.isEmpty else { return }
            let now = outbox.clock.now()
            let scoped = try await storage.users.scopedID(appID: grant.appID, userID: grant.userID)
            try await outbox.enqueue(
                WebhookEntry(scopedID: scoped, time: now, changes: changes), object: .permissions,
                appID: grant.appID, url: subscription.callbackURL, at: now)
        } catch {
            outbox.logger.error(
                "webhook not queued", metadata: ["object": "permissions", "app": "\(grant.appID)", "error": "\(error)"])
        }
    }

    /// The `permissions` changes between two grants, Facebook's verbs: a first login connects and grants, a
    /// removal revokes and disconnects, anything else grants or revokes what moved.
    package static func changes(from old: GrantRecord?, to new: GrantRecord?) -> [(field: String, verb: String)] {
        let before = old?.granted ?? [], after = new?.granted ?? []
        var out: [(field: String, verb: String)] = []
        if old == nil, new != nil { out.append((WebhookObject.connected, "connected")) }
        for permission in after where !before.contains(permission) { out.append((permission, "granted")) }
        for permission in before where !after.contains(permission) { out.append((permission, "revoked")) }
        if old != nil, new == nil { out.append((WebhookObject.connected, "disconnected")) }
        return out
    }
}
