import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import CompressNIO

@Suite struct BadInputTests {
    @Test func bodiesInEveryEncodingAndTheirFailures() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let json = try await client.execute(
                uri: "/me", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"access_token":"\#(token)","fields":"first_name","method":"GET"}"#))
            #expect(json.text == #"{"first_name":"Alice"}"#)

            var plain = ByteBuffer(
                string: #"{"access_token":"\#(token)","fields":"last_name","format":"json","sdk":"ios","method":"get"}"#
            )
            let gz = try plain.compress(with: .gzip(), allocator: ByteBufferAllocator())
            let gzipped = try await client.execute(
                uri: "/v27.0/me", method: .post, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: gz)
            #expect(gzipped.text == #"{"last_name":"Anders"}"#)

            let badGzip = try await client.execute(
                uri: "/me", method: .post, headers: [.contentEncoding: "gzip"], body: ByteBuffer(string: "not gzip"))
            #expect(badGzip.status == .badRequest)
            #expect(badGzip.json["error"]?["code"]?.intValue == 100)

            let badJSON = try await client.execute(
                uri: "/me", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"access_token\":"))
            #expect(badJSON.status == .badRequest)
            #expect(badJSON.json["error"]?["message"]?.stringValue == "(#100) The request body is not a JSON object")

            let invalidUTF8 = try await client.execute(
                uri: "/me", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(bytes: [0x61, 0x3D, 0xFF, 0xFE]))
            #expect(invalidUTF8.status == .badRequest)
            let badPercent = try await client.execute(uri: "/me?access_token=%ZZ", method: .get)
            #expect(badPercent.status == .badRequest)
            #expect(badPercent.json["error"]?["code"]?.intValue == 100)

            let huge = ByteBuffer(repeating: UInt8(ascii: "a"), count: 2 << 20)
            let tooBig = try await client.execute(
                uri: "/me", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: huge)
            #expect(tooBig.status == .contentTooLarge)
            #expect(tooBig.json["error"]?["code"]?.intValue == 100)

            var bomb = ByteBuffer(repeating: UInt8(ascii: "a"), count: 4 << 20)
            let compressedBomb = try bomb.compress(with: .gzip(), allocator: ByteBufferAllocator())
            let bombed = try await client.execute(
                uri: "/me", method: .post, headers: [.contentEncoding: "gzip"], body: compressedBomb)
            // Decompression stops at the body limit, so a bomb is a body that could not be decompressed.
            #expect(bombed.status == .badRequest)
            #expect(bombed.json["error"]?["code"]?.intValue == 100)
            #expect(
                bombed.json["error"]?["message"]?.stringValue == "(#100) The request body could not be decompressed")
        }
    }

    @Test func unknownPathsAndMethods() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.run { client in
            let edge = try await client.execute(uri: "/me/nonsense?access_token=\(token)", method: .get)
            #expect(edge.status == .badRequest)
            #expect(
                edge.json["error"]?["message"]?.stringValue
                    == "(#100) Tried accessing nonexisting field (nonsense) on node type (User)")
            let put = try await client.execute(uri: "/me?access_token=\(token)", method: .put)
            #expect(put.status == .badRequest)
            #expect(put.json["error"]?["error_subcode"]?.intValue == 33)
            let deep = try await client.execute(uri: "/a/b/c/d/e/f/g/h/i/j?access_token=\(token)", method: .get)
            #expect(deep.status == .badRequest)
            #expect(deep.json["error"]?["code"]?.intValue == 2500)
            let root = try await client.execute(uri: "/", method: .get)
            #expect(root.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(root.json["error"] != nil)
        }
    }

    @Test func liveSocketServesTheSameWire() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let scoped = try await server.scopedID(server.alice)
        try await server.run(.live) { client in
            let r = try await client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(r.status == .ok)
            #expect(r.text == #"{"name":"Alice Anders","id":"\#(scoped)"}"#)
            let page = try await client.execute(
                uri:
                    "/dialog/oauth?client_id=\(server.app.id)&redirect_uri=\(FormEncoding.encode([("", TestServer.redirectURI)]).dropFirst())",
                method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            let css = try await client.execute(uri: "/static/gatehouse.css", method: .get)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
        }
    }
}
