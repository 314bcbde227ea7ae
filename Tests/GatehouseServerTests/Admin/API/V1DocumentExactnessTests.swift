import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import GatehouseServer

/// Issue 41, item 6: the server answers exactly what `admin-v1.yaml` allows and refuses what it forbids (the rules
/// schemathesis found the two disagreeing on; `AdminAPIContractTests` runs schemathesis itself).
@Suite struct V1DocumentExactnessTests {
    @Test func everyCursorOfTheDocumentedFormIsAnswered() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let second = try await api.post("/apps", #"{"name":"Second"}"#)
            #expect(second.status == .created)
            let first = try await api.get("/apps?limit=1")
            #expect(first.json["next_cursor"] == "o1")
            // Past the end: an empty page, not an error.
            #expect(try await api.get("/people?cursor=o000000000000000").status == .ok)
            #expect(try await api.get("/people?cursor=o999999999999999").text == #"{"data":[],"next_cursor":null}"#)
            #expect(try await api.get("/audit?cursor=a0").text == #"{"data":[],"next_cursor":null}"#)
            for bad in ["/apps?cursor=bzow", "/apps?cursor=o", "/apps?cursor=o1234567890123456", "/audit?cursor=o1"] {
                let refused = try await api.get(bad)
                #expect(
                    refused.text == V1Problem.validation("cursor", "the cursor is not one this server gave out"),
                    "\(bad)")
            }
        }
    }

    @Test func anEmptyResetBodyResetsToEmpty() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let reset = try await api.post("/state/reset", "{}")
            #expect(reset.status == .ok)
            #expect(reset.text == #"{"apps":0,"people":0,"tokens":0}"#)
        }
    }

    /// Query parameters the document does not allow: the path, the field the problem names, its detail.
    static let queryRefusals: [(String, String, String)] = [
        ("/journal?source=AAA", "source", "source must be table (or left out for this node's journal)"),
        ("/journal?limit=1001", "limit", "limit must be a whole number from 1 to 1000"),
        ("/journal?after=-1", "after", "after must be a whole number, 0 or more"),
        ("/journal?errors=null", "errors", "errors must be true or false"),
        ("/people?test_users=TRUE", "test_users", "test_users must be true or false"),
    ]

    @Test func theJournalRefusesParametersTheDocumentDoesNotAllow() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let allowed = try await api.get("/journal?errors=true&limit=1000&after=0")
            #expect(allowed.status == .ok)
            let legacy = try await api.get("/journal?errors=1")
            #expect(legacy.status == .ok)
            for (path, field, detail) in Self.queryRefusals {
                let refused = try await api.get(path)
                #expect(refused.text == V1Problem.validation(field, detail), "\(path)")
            }
        }
    }

    @Test func unknownFieldsAreRefusedWhereTheDocumentForbidsThem() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let refusals = [
                ("/apps/\(server.app.id)/reset-secret", #"{"x":1}"#, "x"),
                ("/clock/reset", #"{"x":1}"#, "x"),
                ("/apps/\(server.app.id)/webhooks/w1/resend", #"{"x":1}"#, "x"),
                ("/clock/advance", #"{"by":"1d","x":1}"#, "x"),
                ("/injections", #"{"target":"user","id":"1","error":"4","x":1}"#, "x"),
                (
                    "/people",
                    #"{"email":"p@example.com","first_name":"P","last_name":"Q","location":{"name":"Oslo","x":1}}"#,
                    "location.x"
                ),
            ]
            for (path, body, field) in refusals {
                let refused = try await api.post(path, body)
                #expect(refused.text == V1Problem.validation(field, "unknown field \(field)"), "\(path)")
            }
        }
    }

    @Test func lengthsAreCountedAsTheDocumentCountsThem() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            // An emoji with a hundred skin-tone modifiers is one character to Swift and 101 code points to JSON Schema.
            let name = "👍" + String(repeating: "🏻", count: 100)
            let body = JSONValue.object(["name": .string(name)]).serialized()
            let refused = try await api.post("/apps", body)
            #expect(refused.text == V1Problem.validation("name", "name must be at most 100 characters"))
        }
    }

    /// The document's `PermissionName` enum is the server's catalogue and retired names, in that order.
    @Test func theDocumentsPermissionNamesAreTheServers() throws {
        let schemas = AdminAPIv1Document.json["components"]?["schemas"]
        let names = schemas?["PermissionName"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(names == Permission.catalogue.map(\.name) + Permission.retired.map(\.info.name))
    }
}
