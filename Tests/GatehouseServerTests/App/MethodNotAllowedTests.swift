import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 41 item 1: a method a page or admin API path does not have answers 405 with `Allow`; the Graph API keeps
/// Facebook's own answers.
@Suite struct MethodNotAllowedTests {
    @Test func aPageAnswers405WithAllowAndTheErrorPage() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for method in [HTTPRequest.Method.put, .delete, .patch, .trace, HTTPRequest.Method("QUERY")!] {
                let r = try await client.execute(uri: "/login", method: method)
                #expect(r.status == .methodNotAllowed, "\(method)")
                #expect(r.headers[.allow] == "GET, HEAD, POST")
                #expect(r.headers[.contentType] == "text/html; charset=utf-8")
                #expect(r.text.contains("This path does not answer \(method.rawValue); it answers GET, HEAD, POST."))
            }
            // A GET-only page lists HEAD with GET; a POST-only one answers GET and HEAD with 405.
            let css = try await client.execute(uri: "/static/gatehouse.css", method: .post)
            #expect(css.status == .methodNotAllowed)
            #expect(css.headers[.allow] == "GET, HEAD")
            let logout = try await client.execute(uri: "/logout", method: .get)
            #expect(logout.status == .methodNotAllowed)
            #expect(logout.headers[.allow] == "POST")
            let headLogout = try await client.execute(uri: "/logout", method: .head)
            #expect(headLogout.status == .methodNotAllowed)
            #expect(headLogout.headers[.allow] == "POST")
            #expect(headLogout.body.readableBytes == 0)
            // A page path with a parameter: the same, whatever the value.
            let picture = try await client.execute(uri: "/pictures/1/2", method: .delete)
            #expect(picture.status == .methodNotAllowed)
            #expect(picture.headers[.allow] == "GET, HEAD")
        }
    }

    @Test func theAdminAPIAnswers405WithAllowAndAProblem() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let r = try await client.execute(uri: "/admin/api/v1/clock", method: .trace)
            #expect(r.status == .methodNotAllowed)
            #expect(r.headers[.allow] == "GET, HEAD")
            #expect(r.headers[.contentType] == "application/problem+json")
            #expect(
                r.json
                    == [
                        "type": "https://gatehouse.dev/problems/method-not-allowed",
                        "title": "This path does not answer this method", "status": 405,
                        "detail": "This path does not answer TRACE; it answers GET, HEAD.",
                    ])
            let app = try await client.execute(uri: "/admin/api/v1/apps/\(server.app.id)", method: .post)
            #expect(app.status == .methodNotAllowed)
            #expect(app.headers[.allow] == "GET, HEAD, PATCH, DELETE")
            let advance = try await client.execute(uri: "/admin/api/v1/clock/advance", method: .get)
            #expect(advance.status == .methodNotAllowed)
            #expect(advance.headers[.allow] == "POST")
        }
    }

    @Test func theGraphAPIKeepsFacebooksAnswers() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let put = try await client.execute(uri: "/v21.0/me?access_token=\(token)", method: .put)
            #expect(put.status == .badRequest)
            #expect(put.headers[.allow] == nil)
            #expect(
                put.json
                    == [
                        "error": [
                            "message": .string(
                                "Unsupported put request. Object with ID 'me' does not exist, cannot be loaded due to "
                                    + "missing permissions, or does not support this operation. Please read the Graph "
                                    + "API documentation at https://developers.facebook.com/docs/graph-api"),
                            "type": "GraphMethodException", "code": 100, "error_subcode": 33,
                        ]
                    ])
            // The device endpoints are Graph calls: a method they lack is not a page's 405.
            let device = try await client.execute(uri: "/device/login", method: .put)
            #expect(device.status != .methodNotAllowed)
        }
    }
}
