import GatehouseCore
import Testing

/// Facebook's `method` parameter, as a table: the HTTP method and the parameter in, the method run (or refused) out.
@Suite struct GraphMethodOverrideTests {
    static let rows: [(sent: String, parameter: String?, answer: GraphMethodOverride)] = [
        ("GET", nil, .run(.get, consumed: false)),
        ("GET", "", .run(.get, consumed: false)),
        ("GET", "post", .run(.post, consumed: true)),
        ("GET", "POST", .run(.post, consumed: true)),
        ("GET", "Delete", .run(.delete, consumed: true)),
        ("GET", "get", .run(.get, consumed: true)),
        ("GET", "put", .unsupported("PUT")),
        ("GET", "patch", .unsupported("PATCH")),
        ("POST", nil, .run(.post, consumed: false)),
        ("POST", "get", .run(.get, consumed: true)),
        ("POST", "delete", .run(.delete, consumed: true)),
        ("POST", "post", .run(.post, consumed: true)),
        ("POST", "put", .unsupported("PUT")),
        // A HEAD is answered as its GET and never writes.
        ("HEAD", nil, .run(.get, consumed: false)),
        ("HEAD", "GET", .run(.get, consumed: true)),
        ("HEAD", "post", .unsupported("HEAD")),
        ("HEAD", "delete", .unsupported("HEAD")),
        // Other methods ignore the parameter, as Facebook does.
        ("DELETE", nil, .run(.delete, consumed: false)),
        ("DELETE", "post", .run(.delete, consumed: false)),
        ("PUT", nil, .unsupported("PUT")),
        ("PUT", "post", .unsupported("PUT")),
        ("PATCH", "get", .unsupported("PATCH")),
    ]

    @Test(arguments: rows)
    func resolves(_ row: (sent: String, parameter: String?, answer: GraphMethodOverride)) {
        #expect(GraphMethodOverride.resolve(sent: row.sent, parameter: row.parameter) == row.answer)
    }
}
