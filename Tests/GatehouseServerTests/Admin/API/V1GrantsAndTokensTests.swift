import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/grants`, `/tokens`, `/id-tokens` and `/codes`: set up what a login would leave, without a browser, and check
/// it through the Graph API exactly as an app would see it.
@Suite struct V1GrantsAndTokensTests {
    @Test func grantPutShowsInPermissionsAndDeleteRemovesTheApp() async throws {
        let server = try await TestServer.make()
        let path = "/apps/\(server.app.id)/grants/\(server.alice.id)"
        try await server.v1 { api in
            let none = try await api.get(path)
            #expect(none.text == V1Problem.notFound("\(server.alice.id) has not authorized app \(server.app.id)"))
            let put = try await api.put(path, #"{"granted":["email","user_friends"],"declined":["user_birthday"]}"#)
            #expect(put.status == .ok)
            #expect(
                put.text
                    == #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","#
                    + #""granted":["public_profile","email","user_friends"],"declined":["user_birthday"],"#
                    + #""created_time":"2027-01-15T08:00:00Z","updated_time":"2027-01-15T08:00:00Z","#
                    + #""data_access_expiration_time":"2027-04-15T08:00:00Z"}"#
            )
            #expect(try await api.get(path).text == put.text)

            let minted = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)"}"#)
            let token = minted.json["access_token"]?.stringValue ?? ""
            let permissions = try await api.client.execute(
                uri: "/v27.0/me/permissions?access_token=\(token)", method: .get)
            #expect(
                permissions.text
                    == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","#
                    + #""status":"granted"},{"permission":"user_friends","status":"granted"},"#
                    + #"{"permission":"user_birthday","status":"declined"}]}"#
            )

            #expect(try await api.delete(path).status == .noContent)
            #expect(server.notifier.removed.map(\.appID) == [server.app.id])
            let me = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.json["error"]?["code"]?.intValue == 190)
            #expect(try await api.delete(path).status == .notFound)
        }
    }

    @Test func refusedGrantChangesNothing() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        let path = "/apps/\(server.app.id)/grants/\(server.alice.id)"
        try await server.v1 { api in
            let before = try await api.get(path).text
            let both = try await api.put(path, #"{"granted":["email","user_friends"],"declined":["user_friends"]}"#)
            #expect(both.text == V1Problem.validation("declined", "user_friends cannot be both granted and declined"))
            let unknown = try await api.put(path, #"{"granted":["user_everything"]}"#)
            #expect(unknown.text == V1Problem.validation("granted", "unknown permission user_everything"))
            #expect(
                try await api.put(path, #"{"declined":[]}"#).text
                    == V1Problem.validation("granted", "granted is required"))
            #expect(
                try await api.put("/apps/\(server.app.id)/grants/999", #"{"granted":[]}"#).text
                    == V1Problem.notFound("there is no person 999"))
            #expect(try await api.get(path).text == before)
        }
    }

    @Test func mintedTokenAnswersMeUntilDeleted() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let minted = try await api.post(
                "/tokens",
                #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","scopes":["email"],"expires_in":3600}"#
            )
            #expect(minted.status == .created)
            let token = minted.json["access_token"]?.stringValue ?? ""
            let id = minted.json["id"]?.stringValue ?? ""
            let hash = SecretHash.sha256Hex(token)
            #expect(
                minted.text
                    == #"{"id":"\#(id)","hash_prefix":"\#(hash.prefix(12))","kind":"user","#
                    + #""app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","#
                    + #""scopes":["public_profile","email"],"origin":"admin_api","#
                    + #""issued_time":"2027-01-15T08:00:00Z","expires_time":"2027-01-15T09:00:00Z","#
                    + #""revoked":false,"access_token":"\#(token)","token_type":"bearer","expires_in":3600}"#
            )
            let me = try await api.client.execute(
                uri: "/v27.0/me?fields=id,name,email&access_token=\(token)", method: .get)
            #expect(me.status == .ok)
            #expect(me.json["email"] == "alice@example.com")

            let listed = try await api.get("/tokens?person=\(server.alice.id)")
            #expect(listed.json["data"]?.arrayValue?.count == 1)
            #expect(listed.json["data"]?[0]?["id"] == .string(id))
            #expect(!listed.text.contains(token))

            #expect(try await api.delete("/tokens/\(id)").status == .noContent)
            let after = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(after.status == .badRequest)
            #expect(after.json["error"]?["code"]?.intValue == 190)
            #expect(try await api.delete("/tokens/\(id)").text == V1Problem.notFound("there is no live token \(id)"))
            #expect(try await api.get("/tokens").json["data"] == [])
        }
    }

    @Test func revokeAllOfAPersonOrAnApp() async throws {
        let server = try await TestServer.make()
        let other = try await server.services.accounts.createApp(name: "Other", redirectURIs: [])
        try await server.v1 { api in
            func mint(_ app: String, _ person: String) async throws -> String {
                try await api.post("/tokens", #"{"app_id":"\#(app)","person_id":"\#(person)"}"#).json["access_token"]?
                    .stringValue ?? ""
            }
            let aliceHere = try await mint(server.app.id, server.alice.id),
                aliceThere = try await mint(other.id, server.alice.id)
            let bobHere = try await mint(server.app.id, server.bob.id)
            #expect(
                try await api.post("/tokens/revoke", "{}").text
                    == V1Problem.validation("person_id", "name a person_id, an app_id or both"))
            let byPerson = try await api.post("/tokens/revoke", #"{"person_id":"\#(server.alice.id)"}"#)
            #expect(byPerson.text == #"{"revoked":2}"#)
            for token in [aliceHere, aliceThere] {
                #expect(
                    try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get).status
                        == .badRequest)
            }
            #expect(try await api.client.execute(uri: "/v27.0/me?access_token=\(bobHere)", method: .get).status == .ok)
            #expect(try await api.post("/tokens/revoke", #"{"app_id":"\#(server.app.id)"}"#).text == #"{"revoked":1}"#)
            #expect(
                try await api.client.execute(uri: "/v27.0/me?access_token=\(bobHere)", method: .get).status
                    == .badRequest)
        }
    }

    @Test func refusedMintChangesNothing() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let badScope = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","scopes":["nope"]}"#)
            #expect(badScope.text == V1Problem.validation("scopes", "unknown permission nope"))
            let badExpiry = try await api.post(
                "/tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","expires_in":5}"#)
            #expect(
                badExpiry.text
                    == V1Problem.validation("expires_in", "expires_in must be a whole number from 60 to 31536000"))
            let badPerson = try await api.post("/tokens", #"{"app_id":"\#(server.app.id)","person_id":"1"}"#)
            #expect(badPerson.status == .notFound)
            #expect(
                badPerson.text == V1Problem.unknownReference("person_id", "person_id must name an existing person"))
            #expect(try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id) == nil)
            #expect(try await api.get("/tokens").json["data"] == [])
        }
    }

    @Test func mintedCodeIsExchangedAtTheTokenEndpoint() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let badURI = try await api.post(
                "/codes",
                #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","redirect_uri":"https://evil.example/cb"}"#
            )
            #expect(
                badURI.text
                    == V1Problem.validation(
                        "redirect_uri", "redirect_uri must be one of the app's registered redirect URIs"))
            #expect(try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id) == nil)

            let minted = try await api.post(
                "/codes",
                #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","redirect_uri":"\#(TestServer.redirectURI)","scopes":["email"]}"#
            )
            #expect(minted.status == .created)
            let code = minted.json["code"]?.stringValue ?? ""
            #expect(minted.text == #"{"code":"\#(code)","redirect_uri":"\#(TestServer.redirectURI)","expires_in":600}"#)
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("client_secret", server.app.secret),
                ("redirect_uri", TestServer.redirectURI), ("code", code),
            ])
            let exchanged = try await api.client.execute(uri: "/v27.0/oauth/access_token?" + query, method: .get)
            #expect(exchanged.status == .ok)
            let token = exchanged.json["access_token"]?.stringValue ?? ""
            let me = try await api.client.execute(uri: "/v27.0/me?fields=email&access_token=\(token)", method: .get)
            #expect(me.json["email"] == "alice@example.com")
            // A code is good once.
            #expect(
                try await api.client.execute(uri: "/v27.0/oauth/access_token?" + query, method: .get).status
                    == .badRequest)
        }
    }

    @Test func idTokenCarriesTheNonceAndTheGrantedClaims() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        try await server.v1 { api in
            let minted = try await api.post(
                "/id-tokens", #"{"app_id":"\#(server.app.id)","person_id":"\#(server.alice.id)","nonce":"n-123"}"#)
            #expect(minted.status == .created)
            let jwt = minted.json["id_token"]?.stringValue ?? ""
            let parts = jwt.split(separator: ".")
            #expect(parts.count == 3)
            var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                of: "_", with: "/")
            while payload.count % 4 != 0 { payload += "=" }
            let claims = try JSONValue.parse(Data(base64Encoded: payload) ?? Data())
            #expect(claims["nonce"] == "n-123")
            #expect(claims["aud"] == .string(server.app.id))
            #expect(claims["email"] == "alice@example.com")
            #expect(claims["sub"] == .string(try await server.scopedID(server.alice)))
        }
    }
}
