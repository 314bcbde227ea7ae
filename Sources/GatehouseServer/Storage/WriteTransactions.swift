/// The stores a write transaction hands its body. Their writes commit together, or not at all.
public struct TransactionStores: Sendable {
    public var codes: any AuthCodeStore
    public var tokens: any TokenStore

    public init(codes: any AuthCodeStore, tokens: any TokenStore) {
        self.codes = codes
        self.tokens = tokens
    }
}

/// Runs a request's writes as one transaction.
///
/// SQLite with `synchronous=FULL` pays one fsync per commit, which is the floor for an answered write that
/// survives `kill -9`; a route that consumes a code and mints a token in two autocommitted statements pays
/// two. Only writes that need no cache invalidation belong here (codes, new tokens): an invalidation announced
/// before the commit could let another node cache what the transaction is about to change.
public protocol WriteTransactions: Sendable {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func write<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R
}

extension Storage {
    /// Runs `body` as one transaction when the backend offers them (``writes``), else on the plain stores.
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (TransactionStores) async throws -> R) async throws -> R {
        if let writes { return try await writes.write(body) }
        return try await body(TransactionStores(codes: codes, tokens: tokens))
    }
}
