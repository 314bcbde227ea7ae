import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import JWTKit
import NIOCore
import Testing

/// Claims as an independent verifier (jwt-kit) sees them: signature by JWKS, then `exp`.
struct VerifiedIDToken: JWTPayload {
    var iss: String
    var aud: String
    var sub: String
    var iat: Int
    var exp: ExpirationClaim
    var jti: String
    var nonce: String?
    var name: String?
    var email: String?
    var user_birthday: String?
    var user_friends: [String]?
    var at_hash: String?
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

@Suite struct OIDCTests {
    static func jwks(_ client: any TestClientProtocol) async throws -> JWTKeyCollection {
        let r = try await client.execute(uri: "/.well-known/oauth/openid/jwks/", method: .get)
        return try await JWTKeyCollection().add(jwksJSON: r.text)
    }

    static func header(_ token: String) -> JSONValue {
        (try? JSONValue.parse(Base64URL.decode(String(token.split(separator: ".")[0])) ?? Data())) ?? .null
    }

    @Test func discoveryAndTheSameKeyInThreeForms() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for path in ["/.well-known/openid-configuration", "/.well-known/openid-configuration/"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .ok)
                #expect(r.headers[.cacheControl] == "public, max-age=3600")
                #expect(r.headers[.accessControlAllowOrigin] == "*")
                #expect(r.json["issuer"]?.stringValue == "http://gatehouse.test")
                #expect(r.json["jwks_uri"]?.stringValue == "http://gatehouse.test/.well-known/oauth/openid/jwks/")
                #expect(r.json["id_token_signing_alg_values_supported"] == ["RS256"])
                #expect(r.json["subject_types_supported"] == ["pairwise"])
            }
            let jwks = try await client.execute(uri: "/.well-known/oauth/openid/jwks/", method: .get)
            let keys = try #require(jwks.json["keys"]?.arrayValue)
            #expect(keys.count == 1)
            let kid = try #require(keys[0]["kid"]?.stringValue)
            #expect(kid.count == 40 && kid.allSatisfy(\.isHexDigit))
            #expect(
                keys[0]["kty"] == "RSA" && keys[0]["alg"] == "RS256" && keys[0]["use"] == "sig"
                    && keys[0]["e"] == "AQAB")
            let certs = try await client.execute(uri: "/.well-known/oauth/openid/certs/", method: .get)
            let pem = try #require(certs.json[kid]?.stringValue)
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
            let fromCert = try Insecure.RSA.PublicKey(certificatePEM: pem)
            let publicKeys = try await client.execute(uri: "/.well-known/oauth/openid/keys/", method: .get)
            let publicPEM = try #require(publicKeys.json[kid]?.stringValue)
            #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            let fromPEM = try Insecure.RSA.PublicKey(pem: publicPEM)
            #expect(fromCert == fromPEM)
            let (n, _) = try fromPEM.getKeyPrimitives()
            #expect(Base64URL.encode(n) == keys[0]["n"]?.stringValue)
        }
    }

    @Test func limitedLoginGivesOnlyAVerifiableIDToken() async throws {
        let server = try await TestServer.make(approved: ["user_friends", "user_posts", "user_birthday"])
        try await server.run { client in
            let browser = Browser(client)
            let uri = "fb\(server.app.id)://authorize/"
            let query = FormEncoding.encode([
                ("client_id", server.app.id), ("redirect_uri", uri),
                ("response_type", "id_token,graph_domain,user_token_nonce"),
                ("tp", "ios_14_do_not_track"), ("nonce", "n0nce-123"),
                ("scope", "openid,email,user_posts,user_birthday"), ("state", "s"),
            ])
            var page = try await browser.get("/v27.0/dialog/oauth?" + query)
            let posted = try await browser.submitLogin(
                page: page, email: "alice@example.com", password: "alice-password")
            page = try await browser.get(posted.location!)
            #expect(Browser.offered(in: page.text) == ["public_profile", "email", "user_birthday"])
            let done = try await browser.submitConsent(page: page, permissions: ["email", "user_birthday"])
            let location = try #require(done.location)
            #expect(location.hasPrefix(uri + "#"))
            let p = redirectParameters(location)
            #expect(p["access_token"] == nil && p["code"] == nil)
            #expect(p["graph_domain"] == "facebook")
            #expect(p["denied_scopes"] == "user_posts")
            let token = try #require(p["id_token"])
            #expect(token.split(separator: ".").count == 3)
            let header = Self.header(token)
            #expect(header["alg"] == "RS256" && header["typ"] == "JWT" && header["kid"]?.stringValue?.count == 40)

            let claims = try await Self.jwks(client).verify(token, as: VerifiedIDToken.self)
            #expect(claims.iss == "http://gatehouse.test")
            #expect(claims.aud == server.app.id)
            #expect(claims.sub == (try await server.scopedID(server.alice)))
            #expect(claims.nonce == "n0nce-123")
            #expect(claims.email == "alice@example.com")
            #expect(claims.name == "Alice Anders")
            #expect(claims.user_birthday == "04/12/1990")
            #expect(claims.user_friends == nil)
            #expect(claims.at_hash == nil)
            #expect(claims.iat == 1_800_000_000)
            #expect(claims.exp.value == Date(timeIntervalSince1970: 1_800_003_600))
            #expect(
                try await server.services.storage.tokens.live(
                    appID: server.app.id, userID: server.alice.id, now: server.clock.now()
                ).isEmpty)
        }
    }

    @Test func idTokenBesideTheAccessTokenAndInTheWebCodeFlow() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let ios = try await browser.logIn(
                query: FormEncoding.encode([
                    ("client_id", server.app.id), ("redirect_uri", "fb\(server.app.id)://authorize/"),
                    ("response_type", "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce"),
                    ("scope", "email,openid"), ("nonce", "ios-nonce"),
                ]), email: "alice@example.com", password: "alice-password")
            let p = redirectParameters(ios)
            #expect(p["access_token"] != nil)
            let idToken = try #require(p["id_token"])
            #expect(try await Self.jwks(client).verify(idToken, as: VerifiedIDToken.self).nonce == "ios-nonce")

            let verifier = String(repeating: "w", count: 60)
            let web = try await browser.logIn(
                query: FormEncoding.encode([
                    ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("response_type", "code"),
                    ("scope", "openid email"),
                    ("nonce", "web-nonce"), ("code_challenge", PKCE.challenge(verifier: verifier, method: "S256")!),
                    ("code_challenge_method", "S256"),
                ]), email: "alice@example.com", password: "alice-password")
            let code = try #require(redirectParameters(web)["code"])
            let exchange = try await client.execute(
                uri: "/oauth/access_token?"
                    + FormEncoding.encode([
                        ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("code", code),
                        ("code_verifier", verifier),
                    ]), method: .get)
            #expect(
                exchange.json.objectValue?.pairs.map(\.0) == ["access_token", "token_type", "expires_in", "id_token"])
            let claims = try await Self.jwks(client).verify(
                exchange.json["id_token"]!.stringValue!, as: VerifiedIDToken.self)
            #expect(claims.nonce == "web-nonce")
            #expect(claims.email == "alice@example.com")

            let plain = try await browser.logIn(
                query: FormEncoding.encode([
                    ("client_id", server.app.id), ("redirect_uri", TestServer.redirectURI), ("scope", "email"),
                ]), email: "alice@example.com", password: "alice-password")
            let plainCode = try #require(redirectParameters(plain)["code"])
            let noOpenID = try await client.execute(
                uri: "/oauth/access_token?"
                    + FormEncoding.encode([
                        ("client_id", server.app.id), ("client_secret", server.app.secret),
                        ("redirect_uri", TestServer.redirectURI), ("code", plainCode),
                    ]), method: .get)
            #expect(noOpenID.json["id_token"] == nil)
        }
    }

    @Test func rotationKeepsOldTokensVerifiableForTheGracePeriodOnly() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ring = server.services.keyRing
            let claims = IDTokenClaims(
                iss: "http://gatehouse.test", aud: server.app.id, sub: "1", iat: 1_800_000_000, exp: 4_000_000_000,
                jti: "j", nonce: nil)
            let before = try await ring.sign(claims)
            let oldKid = try await ring.activeKey().kid
            try await ring.rotate(grace: 7 * 86400)
            let after = try await ring.sign(claims)
            #expect(Self.header(after)["kid"]?.stringValue != oldKid)
            let both = try await Self.jwks(client)
            _ = try await both.verify(before, as: VerifiedIDToken.self)
            _ = try await both.verify(after, as: VerifiedIDToken.self)
            let published = try await client.execute(uri: "/.well-known/oauth/openid/jwks/", method: .get)
            #expect(published.json["keys"]?.arrayValue?.count == 2)

            server.clock.advance(by: 7 * 86400 + 1)
            let later = try await Self.jwks(client)
            await #expect(throws: (any Error).self) { try await later.verify(before, as: VerifiedIDToken.self) }
            _ = try await later.verify(after, as: VerifiedIDToken.self)
        }
    }
}

@Suite struct OIDCPathTests {
    @Test func keysAreServedWithAndWithoutTheTrailingSlash() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for path in [
                "/.well-known/oauth/openid/jwks", "/.well-known/oauth/openid/jwks/", "/.well-known/oauth/openid/certs",
                "/.well-known/oauth/openid/keys/",
            ] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
            }
        }
    }
}

@Suite struct NonceExchangeTests {
    @Test func appSwitchLoginsAnswerWithANonceThatTheIOSSDKRedeemsOnce() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let location = try await browser.logIn(
                query: FormEncoding.encode([
                    ("client_id", server.app.id), ("redirect_uri", "fb\(server.app.id)://authorize/"),
                    ("response_type", "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce"),
                    ("scope", "email,openid"),
                    ("nonce", "oidc-nonce"), ("ios_fast_app_switch", "true"),
                ]), email: "alice@example.com", password: "alice-password")
            let p = redirectParameters(location)
            #expect(p["access_token"] == nil)
            let nonce = try #require(p["nonce"])
            let clientToken = "\(server.app.id)%7C\(server.app.clientToken)"
            let exchange =
                "/v27.0/oauth/access_token?grant_type=fb_exchange_nonce&fb_exchange_nonce=\(nonce)&"
                + "client_id=\(server.app.id)&fields=&access_token=\(clientToken)"
            let first = try await client.execute(uri: exchange, method: .get)
            #expect(first.status == .ok)
            #expect(first.json.objectValue?.pairs.map(\.0) == ["access_token", "token_type", "expires_in", "id_token"])
            let token = try #require(first.json["access_token"]?.stringValue)
            let claims = try await OIDCTests.jwks(client).verify(
                first.json["id_token"]!.stringValue!, as: VerifiedIDToken.self)
            #expect(claims.nonce == "oidc-nonce")
            let me = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(me.json["name"]?.stringValue == "Alice Anders")

            let again = try await client.execute(uri: exchange, method: .get)
            #expect(again.json["error"]?["error_subcode"]?.intValue == 36009)
            let dead = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(dead.json["error"]?["code"]?.intValue == 190)
            // A nonce is not an authorization code.
            let asCode = try await client.execute(
                uri:
                    "/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)&"
                    + "redirect_uri=\(AuthCodeRecord.nonceExchangeMarker)&code=\(nonce)",
                method: .get)
            #expect(asCode.json["error"]?["message"]?.stringValue == "Invalid verification code format.")
        }
    }
}
