import Foundation
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 41 item 7: `POST /admin/api/v1/state/reset` with no body at all resets to empty, as `{}` does, in
/// development and (with `--allow-state-replace`) in production; a browser's bodiless cross-site POST (it carries an
/// `Origin`) and a body without a JSON media type are still refused with 415.
@Suite struct V1StateResetBodilessTests {
    static let emptyCounts = #"{"apps":0,"people":0,"tokens":0}"#
    static let unsupported = V1Problem.text(
        "unsupported-media-type", 415, "Send application/json",
        "send a JSON body with Content-Type: application/json (even an empty one)")

    @Test func noBodyResetsToEmptyInDevelopment() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let reset = try await client.execute(uri: "/admin/api/v1/state/reset", method: .post)
            #expect(reset.status == .ok)
            #expect(reset.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(reset.text == Self.emptyCounts)
            let apps = try await client.execute(uri: "/admin/api/v1/apps", method: .get)
            #expect(apps.text == #"{"data":[],"next_cursor":null}"#)
        }
    }

    @Test func noBodyResetsToEmptyInProductionWhenStateReplaceIsAllowed() async throws {
        let server = try await AdminReadScopeTests.production(allowStateReplace: true)
        let token = try await AdminTokens(services: server.services).create(name: "ops", readOnly: false).token
        try await server.run { client in
            var headers = AdminReadScopeTests.headers(token)
            headers[.contentLength] = "0"
            let reset = try await client.execute(uri: "/admin/api/v1/state/reset", method: .post, headers: headers)
            #expect(reset.status == .ok)
            #expect(reset.text == Self.emptyCounts)
            #expect(try await server.services.storage.users.find(id: server.alice.id) == nil)
        }
    }

    @Test func aBrowsersBodilessPostAndAnUntypedBodyAreStillRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let fromPage = try await client.execute(
                uri: "/admin/api/v1/state/reset", method: .post, headers: [.origin: "https://elsewhere.example"])
            #expect(fromPage.status == .unsupportedMediaType)
            #expect(fromPage.text == Self.unsupported)
            let untyped = try await client.execute(
                uri: "/admin/api/v1/state/reset", method: .post, body: ByteBuffer(string: #"{"to":"empty"}"#))
            #expect(untyped.status == .unsupportedMediaType)
            // Nothing was wiped.
            #expect(try await server.services.storage.users.find(id: server.alice.id) != nil)
        }
    }
}

extension V1StateResetBodilessTests {
    /// Only the reset's body is optional: another write with no body still needs the JSON media type
    /// (`AdminSurfaceTests.clockResetRefusesABodilessCrossSiteStylePost` covers the clock's).
    @Test func otherWritesStillNeedJSON() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let refused = try await client.execute(
                uri: "/admin/api/v1/apps/\(server.app.id)/reset-secret", method: .post)
            #expect(refused.status == .unsupportedMediaType)
            #expect(refused.text == Self.unsupported)
        }
    }
}
