/// Facebook's batch requests (`POST /` with `batch=[…]`): the limits the server enforces and its errors name.
package enum GraphBatch {
    /// The most calls one batch may hold; more is `(#1) Too many requests in batch message`.
    package static let maximumEntries = 50
}
