import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The JSON admin API from before v1 is retired: each old path answers every method it had with `410 Gone`, the
/// replacing v1 route in the body and in `Link`, to anyone, and changes nothing.
@Suite struct RetiredAdminRoutesTests {
    /// Old method and path → the replacing method and path, as a client sees them.
    static let expected: [(HTTPRequest.Method, String, String, String)] = [
        (.get, "/admin/api/clock", "GET", "/admin/api/v1/clock"),
        (.post, "/admin/api/clock/advance", "POST", "/admin/api/v1/clock/advance"),
        (.post, "/admin/api/clock/reset", "POST", "/admin/api/v1/clock/reset"),
        (.get, "/admin/api/injections", "GET", "/admin/api/v1/injections"),
        (.post, "/admin/api/injections", "POST", "/admin/api/v1/injections"),
        (.delete, "/admin/api/injections", "DELETE", "/admin/api/v1/injections"),
        (.delete, "/admin/api/injections/inj_42", "DELETE", "/admin/api/v1/injections/inj_42"),
        (.get, "/admin/api/export", "GET", "/admin/api/v1/state"),
        (.get, "/admin/api/export?include_private_keys=true", "GET", "/admin/api/v1/state"),
        (.post, "/admin/api/import", "PUT", "/admin/api/v1/state"),
        (.get, "/admin/api/journal?errors=1", "GET", "/admin/api/v1/journal"),
        (.get, "/admin/api/journal/7", "GET", "/admin/api/v1/journal/7"),
        (.post, "/admin/api/scenario?check=1", "POST", "/admin/api/v1/scenario"),
    ]

    static func gone(_ method: String, _ path: String) -> String {
        #"{"error":{"message":"Gone: use \#(method) \#(path)","type":"GatehouseAdminException","code":410},"#
            + #""replacement":"\#(path)"}"#
    }

    @Test(arguments: [ServerMode.development, .production])
    func everyOldRouteAnswersGoneWithItsReplacement(mode: ServerMode) async throws {
        let server = try await TestServer.make(mode: mode)
        try await server.run { client in
            for (method, path, newMethod, successor) in Self.expected {
                // No credentials, and a body the old route would have acted on.
                let r = try await client.execute(
                    uri: path, method: method, headers: [.contentType: "application/json"],
                    body: method == .post ? ByteBuffer(string: #"{"by":"61d"}"#) : nil)
                #expect(r.status == .gone, "\(method) \(path)")
                #expect(r.headers[.contentType] == "application/json; charset=UTF-8", "\(path)")
                #expect(r.headers[.cacheControl] == "no-store", "\(path)")
                #expect(r.headers[HTTPField.Name("Link")!] == "<\(successor)>; rel=\"successor-version\"", "\(path)")
                #expect(r.text == Self.gone(newMethod, successor), "\(method) \(path)")
            }
        }
        #expect(server.clock.currentOffset == 0)
    }

    @Test func aPathParameterIsEscapedBeforeItReachesTheHeader() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let r = try await client.execute(uri: "/admin/api/injections/a%3E%3Cb", method: .delete)
            #expect(r.status == .gone)
            let link = try #require(r.headers[HTTPField.Name("Link")!])
            #expect(
                !link.dropFirst().dropLast(#">; rel="successor-version""#.count).contains(where: { "<> ".contains($0) })
            )
        }
    }

    @Test func methodsTheOldRoutesNeverHadAreNotAnswered() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for (method, path) in [
                (HTTPRequest.Method.delete, "/admin/api/clock"), (.post, "/admin/api/export"),
                (.get, "/admin/api/nothing"),
            ] {
                let r = try await client.execute(uri: path, method: method)
                #expect(r.status == .notFound, "\(method) \(path)")
            }
        }
    }

    @Test func theTableNamesEachRetiredPathOnce() {
        let keys = RetiredAdminRoutes.table.map { "\($0.method) \($0.path)" }
        #expect(Set(keys).count == keys.count)
        #expect(RetiredAdminRoutes.table.count == 12)
        #expect(RetiredAdminRoutes.isRetired("/admin/api/journal/12"))
        #expect(!RetiredAdminRoutes.isRetired("/admin/api/v1/journal"))
        #expect(!RetiredAdminRoutes.isRetired("/admin/api/journal/"))
    }
}
