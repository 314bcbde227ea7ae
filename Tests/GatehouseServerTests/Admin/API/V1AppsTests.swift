import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/admin/api/v1/apps`: create, read, list, change, reset the secret of and delete apps.
@Suite struct V1AppsTests {
    static let shopBody =
        #"{"id":"1234567890123456","secret":"shop-secret-1","name":"Shop","#
        + #""redirect_uris":["https://shop.example/cb"],"approved_permissions":["user_friends"],"require_pkce":true}"#

    /// The app object the API answers for the shop, with its client token (random) and roles.
    static func shop(clientToken: String, name: String = "Shop", roles: String = "[]") -> String {
        #"{"id":"1234567890123456","name":"\#(name)","secret":"shop-secret-1","client_token":"\#(clientToken)","#
            + #""redirect_uris":["https://shop.example/cb"],"js_sdk_domains":[],"#
            + #""approved_permissions":["user_friends"],"require_pkce":true,"require_app_secret":false,"#
            + #""deauthorize_callback_url":null,"data_deletion_callback_url":null,"roles":\#(roles),"created_time":"2027-01-15T08:00:00Z"}"#
    }

    @Test func createGetListUpdateResetAndDelete() async throws {
        let server = try await TestServer.make()
        let alice = server.alice.id
        try await server.v1 { api in
            let created = try await api.post("/apps", Self.shopBody)
            #expect(created.status == .created)
            #expect(created.headers[.contentType] == "application/json; charset=UTF-8")
            let clientToken = created.json["client_token"]?.stringValue ?? ""
            #expect(clientToken.count == 32)
            #expect(created.text == Self.shop(clientToken: clientToken))

            let fetched = try await api.get("/apps/1234567890123456")
            #expect(fetched.status == .ok)
            #expect(fetched.text == Self.shop(clientToken: clientToken))

            let list = try await api.get("/apps")
            #expect(list.status == .ok)
            #expect(
                list.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                    server.app.id, "1234567890123456",
                ])
            #expect(list.json["next_cursor"] == .null)

            let patched = try await api.patch(
                "/apps/1234567890123456", #"{"name":"Shop 2","roles":[{"person_id":"\#(alice)","role":"developer"}]}"#)
            #expect(patched.status == .ok)
            #expect(
                patched.text
                    == Self.shop(
                        clientToken: clientToken, name: "Shop 2",
                        roles: #"[{"person_id":"\#(alice)","role":"developer"}]"#))
            #expect(try await server.services.storage.apps.role(appID: "1234567890123456", userID: alice) == .developer)

            let cleared = try await api.patch(
                "/apps/1234567890123456", #"{"roles":[],"deauthorize_callback_url":"https://shop.example/deauth"}"#)
            #expect(cleared.json["roles"] == [])
            #expect(cleared.json["deauthorize_callback_url"] == "https://shop.example/deauth")

            let reset = try await api.post("/apps/1234567890123456/reset-secret")
            #expect(reset.status == .ok)
            let secret = reset.json["secret"]?.stringValue ?? ""
            #expect(secret.count == 32 && secret != "shop-secret-1")
            #expect(try await server.services.storage.apps.find(id: "1234567890123456")?.secret == secret)

            let deleted = try await api.delete("/apps/1234567890123456")
            #expect(deleted.status == .noContent)
            #expect(deleted.body.readableBytes == 0)
            let gone = try await api.get("/apps/1234567890123456")
            #expect(gone.status == .notFound)
            #expect(gone.headers[.contentType] == "application/problem+json")
            #expect(gone.text == V1Problem.notFound("there is no app 1234567890123456"))
            #expect(
                try await api.delete("/apps/1234567890123456").text
                    == V1Problem.notFound("there is no app 1234567890123456"))
        }
    }

    @Test func deletingAnAppEndsItsTokensAndTestUsers() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        let tester = try await server.services.accounts.createUser(
            NewUser(
                email: "tester@example.com", password: "tester-password", firstName: "Tess", lastName: "Ter",
                testUserOfAppID: server.app.id))
        try await server.v1 { api in
            let before = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(before.status == .ok)
            #expect(try await api.delete("/apps/\(server.app.id)").status == .noContent)
            #expect(
                try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status == .badRequest
            )
            #expect(try await server.services.storage.users.find(id: tester.id) == nil)
            #expect(try await server.services.storage.users.find(id: server.alice.id) != nil)
        }
    }

    @Test func fixedIDCreateIsIdempotent() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let first = try await api.post("/apps", Self.shopBody)
            #expect(first.status == .created)
            let again = try await api.post("/apps", Self.shopBody)
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            let different = try await api.post(
                "/apps", Self.shopBody.replacingOccurrences(of: #""name":"Shop""#, with: #""name":"Other""#))
            #expect(different.status == .conflict)
            #expect(
                different.text
                    == V1Problem.conflict(
                        "an app with id 1234567890123456 exists and differs from this body", field: "id"))
            #expect(try await api.get("/apps/1234567890123456").text == first.text)
        }
    }

    @Test func refusedWritesChangeNothing() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let before = try await api.get("/apps/\(server.app.id)").text
            let badRole = try await api.patch(
                "/apps/\(server.app.id)", #"{"name":"Renamed","roles":[{"person_id":"999","role":"admin"}]}"#)
            #expect(badRole.status == .notFound)
            #expect(
                badRole.text
                    == V1Problem.unknownReference(
                        "roles[0].person_id", "roles[0].person_id must name an existing person"))
            let extraRoleField = try await api.patch(
                "/apps/\(server.app.id)", #"{"roles":[{"person_id":"\#(server.alice.id)","role":"admin","x":1}]}"#)
            #expect(extraRoleField.text == V1Problem.validation("roles[0].x", "unknown field roles[0].x"))
            let badURI = try await api.patch(
                "/apps/\(server.app.id)", #"{"name":"Renamed","redirect_uris":["https://x.example/#frag"]}"#)
            #expect(badURI.json["field"] == "redirect_uris")
            let unknown = try await api.patch("/apps/\(server.app.id)", #"{"name":"Renamed","colour":"red"}"#)
            #expect(unknown.text == V1Problem.validation("colour", "unknown field colour"))
            let badPermission = try await api.post("/apps", #"{"name":"New","approved_permissions":["user_nonsense"]}"#)
            #expect(
                badPermission.text == V1Problem.validation("approved_permissions", "unknown permission user_nonsense"))
            let noName = try await api.post("/apps", #"{"redirect_uris":[]}"#)
            #expect(noName.text == V1Problem.validation("name", "name is required"))
            #expect(try await api.get("/apps/\(server.app.id)").text == before)
            #expect(try await server.services.storage.apps.list().count == 1)
        }
    }

    @Test func mediaTypeSizeAndSyntaxAreChecked() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let form = try await api.call(.post, "/apps", "name=x", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == .unsupportedMediaType)
            #expect(
                form.text
                    == V1Problem.text(
                        "unsupported-media-type", 415, "Send application/json",
                        "send a JSON body with Content-Type: application/json (even an empty one)"))
            let bodiless = try await api.call(.post, "/apps/\(server.app.id)/reset-secret", nil, contentType: nil)
            #expect(bodiless.status == .unsupportedMediaType)
            let huge = try await api.post("/apps", #"{"name":""# + String(repeating: "x", count: 70_000) + #""}"#)
            #expect(huge.status == .contentTooLarge)
            #expect(
                huge.text
                    == V1Problem.text("too-large", 413, "The body is too large", "the body is larger than 65536 bytes"))
            let broken = try await api.post("/apps", "{")
            #expect(broken.text == V1Problem.validation("body", "the body is not valid JSON"))
            let array = try await api.post("/apps", "[]")
            #expect(array.text == V1Problem.validation("body", "the body must be a JSON object"))
            #expect(try await server.services.storage.apps.list().count == 1)
        }
    }

    @Test func listsArePagedWithACursor() async throws {
        let server = try await TestServer.make()
        for i in 1...4 { _ = try await server.services.accounts.createApp(name: "App \(i)", redirectURIs: []) }
        try await server.v1 { api in
            var names: [String] = []
            var path = "/apps?limit=2"
            var pages = 0
            while true {
                let page = try await api.get(path)
                #expect(page.status == .ok)
                #expect((page.json["data"]?.arrayValue?.count ?? 0) <= 2)
                names += page.json["data"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                pages += 1
                guard let cursor = page.json["next_cursor"]?.stringValue else { break }
                path = "/apps?limit=2&cursor=\(cursor)"
            }
            #expect(pages == 3)
            #expect(names == ["Test App", "App 1", "App 2", "App 3", "App 4"])
            #expect(
                try await api.get("/apps?limit=0").text
                    == V1Problem.validation("limit", "limit must be a whole number from 1 to 200"))
            #expect(try await api.get("/apps?limit=201").json["field"] == "limit")
            #expect(
                try await api.get("/apps?cursor=nonsense").text
                    == V1Problem.validation("cursor", "the cursor is not one this server gave out"))
        }
    }
}
