import Foundation

/// A row of a persistent outbox: something the server must deliver to the outside (a mail, an app callback),
/// with its delivery state. The schedule lives in the row, so retries survive restarts and every node shares it.
package protocol OutboxItem: Sendable, Equatable {
    var id: String { get }
    /// Attempts made so far.
    var attempts: Int { get set }
    /// When the next attempt is due; nil once delivered or given up (or, for mail, kept only).
    var nextAttemptAt: Date? { get set }
    var deliveredAt: Date? { get set }
    var gaveUpAt: Date? { get set }
    /// Why the last attempt failed, or what was wrong with a delivered item's answer.
    var lastError: String? { get set }
}

/// The part of a persistent outbox every delivery shares: rows in, due rows out, one attempt at a time.
package protocol OutboxStore<Item>: Sendable {
    associatedtype Item: OutboxItem

    func insert(_ item: Item) async throws
    func find(id: String) async throws -> Item?
    /// Undelivered items due at `now`, oldest due first.
    func due(now: Date, limit: Int) async throws -> [Item]
    /// Takes a due item for one attempt by moving its due time to `leaseUntil`; false when another worker took it
    /// first. A worker that dies mid-attempt leaves it due again at `leaseUntil`.
    func claim(id: String, expectedNextAttemptAt: Date, leaseUntil: Date) async throws -> Bool
    /// Replaces the stored item with the same id; throws `StorageError.notFound` when there is none.
    func update(_ item: Item) async throws
}

extension MailMessageRecord: OutboxItem {}
extension AppCallbackRecord: OutboxItem {}
