import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 41 item 5: every version Facebook released is answered (in its era's shape), a segment shaped like a
/// version Facebook never released is refused as Facebook refuses it, and every Graph answer, errors included,
/// says its version in `facebook-api-version`.
@Suite struct GraphVersionRefusalTests {
    static let apiVersion = HTTPField.Name("facebook-api-version")!
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    static func unknownPath(_ components: String) -> String {
        #"{"error":{"message":"Unknown path components: \#(components)","type":"OAuthException","code":2500}}"#
    }

    @Test func anUnreleasedVersionIsRefusedOnEveryVersionedSurface() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let appToken = "\(server.app.id)|\(server.app.secret)"
        try await server.run { client in
            for (uri, method, rest) in [
                ("/v99.0/me?access_token=\(token)", HTTPRequest.Method.get, "/me"),
                ("/v2.13/me/permissions?access_token=\(token)", .delete, "/me/permissions"),
                (
                    "/v99.0/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)"
                        + "&grant_type=client_credentials", .get, "/oauth/access_token"
                ),
                ("/v3.4/debug_token?input_token=\(token)&access_token=\(appToken)", .get, "/debug_token"),
                ("/v28.0/me?access_token=\(token)", .post, "/me"),
            ] {
                let r = try await client.execute(uri: uri, method: method)
                #expect(r.status == .badRequest, "\(uri)")
                #expect(r.text == Self.unknownPath(rest), "\(uri)")
                #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
                // Facebook reads the segment as no version at all: the answer is at the default version.
                #expect(r.headers[Self.apiVersion] == GraphAPIVersion.current, "\(uri)")
            }
            // With nothing after it, the segment is an object that does not exist.
            let bare = try await client.execute(uri: "/v99.0?access_token=\(token)", method: .get)
            #expect(bare.status == .badRequest)
            #expect(
                bare.text
                    == #"{"error":{"message":"Unsupported get request. Object with ID 'v99.0' does not exist, "#
                    + "cannot be loaded due to missing permissions, or does not support this operation. Please read "
                    + #"the Graph API documentation at https://developers.facebook.com/docs/graph-api","#
                    + #""type":"GraphMethodException","code":100,"error_subcode":33}}"#)
            #expect(bare.headers[Self.apiVersion] == GraphAPIVersion.current)
        }
    }

    @Test func theRefusalIsExplainedInTheJournal() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            _ = try await client.execute(uri: "/v99.0/me?access_token=\(token)", method: .get)
            let entry = try #require(server.services.journal.entries(limit: 5).first)
            #expect(entry.errorCode == 2500)
            #expect(
                entry.explanation
                    == "v99.0 is not a Graph API version Facebook released (the current one is "
                    + "\(GraphAPIVersion.current)), so Facebook reads it as an object id and refuses the path")
        }
    }

    @Test func everyReleasedVersionAnswersAndSaysSo() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            for version in GraphAPIVersion.released {
                let r = try await client.execute(uri: "/\(version)/me?fields=id&access_token=\(token)", method: .get)
                #expect(r.status == .ok, "\(version)")
                #expect(r.headers[Self.apiVersion] == version)
            }
        }
    }

    @Test func errorsCarryTheVersionHeaderToo() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for (uri, version) in [
                ("/v19.0/me", "v19.0"), ("/me?access_token=EAAGnothing", GraphAPIVersion.current),
                ("/v2.3/nonexistent/edge/a/b/c/d/e/f/g", "v2.3"), ("/v27.0/oauth/access_token", "v27.0"),
            ] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status.code >= 400, "\(uri)")
                #expect(r.json["error"]?["code"] != nil, "\(uri)")
                #expect(r.headers[Self.apiVersion] == version, "\(uri)")
            }
            let oversized = try await client.execute(
                uri: "/v22.0/me", method: .post, headers: Self.form,
                body: ByteBuffer(repeating: UInt8(ascii: "a"), count: server.services.configuration.maxBodyBytes + 1))
            #expect(oversized.json["error"]?["code"] != nil)
            #expect(oversized.headers[Self.apiVersion] == "v22.0")
        }
    }

    @Test func aBatchEntryUnderAnUnreleasedVersionIsNotAnsweredAsThatVersion() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let batch =
            #"[{"method":"GET","relative_url":"v2.12/me?fields=id"},{"method":"GET","relative_url":"v99.0/me"}]"#
        try await server.run { client in
            let r = try await client.execute(
                uri: "/", method: .post, headers: Self.form,
                body: ByteBuffer(
                    string: FormEncoding.encode([
                        ("access_token", token), ("batch", batch), ("include_headers", "false"),
                    ])
                ))
            #expect(r.status == .ok)
            let items = try #require(r.json.arrayValue)
            #expect(items.count == 2)
            #expect(items[0]["code"]?.intValue == 200)
            #expect(items[1]["code"]?.intValue == 400)
        }
    }

    @Test func theDialogsUnderAnUnreleasedVersionAnswerAPageNotFound() async throws {
        let server = try await TestServer.make()
        let query = "client_id=\(server.app.id)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback"
        try await server.run { client in
            for path in ["/v99.0/dialog/oauth", "/v2.13/dialog/feed"] {
                let page = try await client.execute(uri: "\(path)?\(query)", method: .get)
                #expect(page.status == .notFound, "\(path)")
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                let version = String(path.dropFirst().prefix { $0 != "/" })
                #expect(page.text.contains("\(version) is not a Graph API version."))
                #expect(page.text.contains("/\(GraphAPIVersion.current)/dialog/oauth"))
            }
            let current = try await client.execute(
                uri: "/\(GraphAPIVersion.current)/dialog/oauth?\(query)", method: .get)
            #expect(current.status == .ok)
            let old = try await client.execute(uri: "/v2.3/dialog/oauth?\(query)", method: .get)
            #expect(old.status == .ok)
        }
    }
}

/// `default_graph_version` must be a version Facebook released, or every unversioned call would answer at none.
@Suite struct DefaultGraphVersionSettingTests {
    @Test func anUnreleasedDefaultVersionIsAConfigurationError() throws {
        let path = try ConfigurationLoaderTests.file("default_graph_version: v99.0\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            throws: ConfigurationError(
                "default_graph_version in the config file: v99.0 is not a Graph API version Facebook released "
                    + "(e.g. v27.0)")
        ) { try ConfigurationLoader(filePath: path).load() }
        let released = try ConfigurationLoaderTests.file("default_graph_version: v2.8\n")
        defer { try? FileManager.default.removeItem(atPath: released) }
        #expect(try ConfigurationLoader(filePath: released).load().configuration.defaultGraphVersion == "v2.8")
    }
}
