/// The stores a write transaction hands its body. Their writes commit together, or not at all.
package struct TransactionStores: Sendable {
    package var codes: any AuthCodeStore
    package var tokens: any TokenStore
    /// Grant changes are announced to the caches (here and on other nodes) once the transaction has committed.
    package var grants: any GrantStore

    package init(codes: any AuthCodeStore, tokens: any TokenStore, grants: any GrantStore) {
        self.codes = codes
        self.tokens = tokens
        self.grants = grants
    }
}

/// Runs a request's writes as one transaction.
///
/// SQLite with `synchronous=FULL` pays one fsync per commit, which is the floor for an answered write that
/// survives `kill -9`; a route that consumes a code and mints a token in two autocommitted statements pays
/// two. The stores it hands out are the ones whose writes are safe to group: codes, new tokens, and grants,
/// whose cache invalidations are held back until the commit (announced before it, another node could cache
/// what the transaction is about to change).
///
/// The body must write only through the stores it is handed: on SQLite the writer is held for the whole
/// transaction, and a write through the shared stores would wait for it forever.
package protocol WriteTransactions: Sendable {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// `body` may run more than once (SQLite's group commit runs a group again when one of its writers failed
    /// half-way), so it must write only through its stores and do nothing else that cannot be repeated.
    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R
}

extension Storage {
    /// Runs `body` as one transaction when the backend offers them (``writes``), else on the plain stores.
    package func transaction<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        if let writes { return try await writes.write(body) }
        return try await body(TransactionStores(codes: codes, tokens: tokens, grants: grants))
    }
}
