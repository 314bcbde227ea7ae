import ChildProcesses
import Crypto
import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// Limited Login end to end, and every forgery issue 4 lists, against a live server's published keys.
@Suite(.tags(.process)) struct AuthenticationTokenVerifierTests {
    final class FixedClock: SDKClock, @unchecked Sendable {
        let lock = NSLock()
        var instant = Date()
        func now() -> Date { lock.withLock { instant } }
    }

    /// A real id_token from a Limited Login dialog, with its nonce.
    static func idToken(_ server: LiveServer, nonce: String = "nonce-42") async throws -> String {
        let query = FormEncoding.encode([
            ("client_id", server.appID), ("redirect_uri", "fb\(server.appID)://authorize/"),
            ("response_type", "id_token,graph_domain,user_token_nonce"), ("tp", "ios_14_do_not_track"),
            ("nonce", nonce),
            ("scope", "openid,email"), ("state", "s"),
        ])
        let url = URL(string: server.baseURL.absoluteString + "/v27.0/dialog/oauth?" + query)!
        let redirect = try await DialogPlayer().complete(
            url, email: server.users[0].email, password: server.users[0].password)
        return try #require(LoginCallback(url: redirect)?.idToken)
    }

    static func segments(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func expectInvalid(
        _ verifier: AuthenticationTokenVerifier, _ token: String, nonce: String = "nonce-42", _ reason: String
    ) async {
        do {
            _ = try await verifier.verify(token, nonce: nonce)
            Issue.record("accepted a forged or invalid id_token: \(reason)")
        } catch let error as LoginError {
            #expect(error.code == .invalidIDToken, "\(reason)")
            #expect(error.code.rawValue == 309)
        } catch {
            Issue.record("unexpected error \(error) for \(reason)")
        }
    }

    @Test func limitedLoginThroughLoginManagerVerifiesTheTokenAndFillsTheProfile() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let presenter = DialogPlayerPresenter(server: server, user: server.users[0])
        let manager = LoginManager(presenter: presenter, environment: environment)
        let configuration = try #require(
            LoginConfiguration(permissions: ["email"], tracking: .limited, nonce: "limited-nonce"))
        let result = await manager.logIn(configuration: configuration)
        guard case .success = result else { Issue.record("limited login failed: \(result)"); return }
        #expect(environment.currentAccessToken == nil)
        let token = try #require(environment.currentAuthenticationToken)
        #expect(token.nonce == "limited-nonce")
        let profile = try #require(environment.currentProfile)
        #expect(profile.isLimited)
        #expect(profile.name == server.users[0].name)
        #expect(profile.email == server.users[0].email)
    }

    @Test func genuineTokensVerifyAndEveryForgeryIsRefused() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let clock = FixedClock()
        let environment = GatehouseKitEnvironment(settings: server.settings(), clock: clock)
        let verifier = AuthenticationTokenVerifier(environment: environment)
        let token = try await Self.idToken(server)
        let (verified, claims) = try await verifier.verify(token, nonce: "nonce-42")
        #expect(verified.tokenString == token)
        #expect(claims.aud == server.appID)
        #expect(claims.email == server.users[0].email)
        #expect(!claims.sub.isEmpty && !claims.jti.isEmpty)
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            #expect(verified.claims() == claims)
            clock.lock.withLock { clock.instant = Date().addingTimeInterval(601) }
            #expect(verified.claims() == nil)  // Facebook's claims() gives nil for tokens older than 10 minutes
            clock.lock.withLock { clock.instant = Date() }
        }

        let parts = Self.segments(token)
        let header = try JSONValue.parse(Base64URL.decode(parts[0])!)
        var payload = try JSONValue.parse(Base64URL.decode(parts[1])!)

        // Tampered signature, tampered payload.
        var signature = Array(Base64URL.decode(parts[2])!)
        signature[10] ^= 0x01
        await Self.expectInvalid(
            verifier, parts[0] + "." + parts[1] + "." + Base64URL.encode(signature), "tampered signature")
        if case .object(var object) = payload { object["email"] = "mallory@example.com"; payload = .object(object) }
        await Self.expectInvalid(
            verifier, parts[0] + "." + Base64URL.encode(Array(payload.serialized().utf8)) + "." + parts[2],
            "tampered payload")
        await Self.expectInvalid(verifier, parts[0] + "." + parts[1], "two segments")

        // alg none, and HS256 keyed with the public key (algorithm confusion).
        let kid = try #require(header["kid"]?.stringValue)
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"\#(kid)","typ":"JWT"}"#.utf8))
        await Self.expectInvalid(verifier, none + "." + parts[1] + ".", "alg none")
        let keys = try await GraphTransport(environment: environment).send(
            method: "GET", path: ".well-known/oauth/openid/keys/", parameters: [:], tokenString: nil, version: "")
        let publicPEM = try #require(keys.json?[kid]?.stringValue)
        let hsHeader = Base64URL.encode(Array(#"{"alg":"HS256","kid":"\#(kid)","typ":"JWT"}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((hsHeader + "." + parts[1]).utf8), using: SymmetricKey(data: Data(publicPEM.utf8)))
        await Self.expectInvalid(
            verifier, hsHeader + "." + parts[1] + "." + Base64URL.encode(Array(mac)),
            "HS256 with the public key as secret")

        // Unknown kid.
        let otherKid = Base64URL.encode(
            Array(#"{"alg":"RS256","kid":"0000000000000000000000000000000000000000","typ":"JWT"}"#.utf8))
        await Self.expectInvalid(verifier, otherKid + "." + parts[1] + "." + parts[2], "unknown kid")

        // Nonce: wrong and missing.
        await Self.expectInvalid(verifier, token, nonce: "other-nonce", "wrong nonce")
        await Self.expectInvalid(verifier, token, nonce: "", "missing nonce")

        // Wrong audience and wrong issuer (the same server under another name).
        let otherApp = server.settings()
        otherApp.appID = "999"
        await Self.expectInvalid(
            AuthenticationTokenVerifier(environment: GatehouseKitEnvironment(settings: otherApp, clock: clock)), token,
            "wrong aud")
        let otherIssuer = server.settings()
        otherIssuer.serverURL = URL(
            string: server.baseURL.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
        await Self.expectInvalid(
            AuthenticationTokenVerifier(environment: GatehouseKitEnvironment(settings: otherIssuer, clock: clock)),
            token, "wrong iss")

        // Stale iat (older than 10 minutes), then expired.
        clock.lock.withLock { clock.instant = Date().addingTimeInterval(601) }
        await Self.expectInvalid(verifier, token, "stale iat")
        clock.lock.withLock { clock.instant = Date().addingTimeInterval(3601) }
        await Self.expectInvalid(verifier, token, "expired")
    }
}

/// The native app-switch flow: the server answers with a one-time `nonce`, the SDK redeems it with
/// `fb_exchange_nonce`, then verifies the id_token that comes back.
@Suite(.tags(.process)) struct LiveNonceExchangeTests {
    /// Sends the dialog through the app-switch path (`ios_fast_app_switch=true`), as Facebook's app does.
    final class AppSwitchPresenter: LoginDialogPresenting, @unchecked Sendable {
        let server: LiveServer
        init(server: LiveServer) { self.server = server }
        func prepare() async throws -> String { "fb\(server.appID)://authorize/" }
        func present(_ url: URL) async throws -> URL? {
            let appSwitch = URL(string: url.absoluteString + "&ios_fast_app_switch=true")!
            return try await DialogPlayer().complete(
                appSwitch, email: server.users[1].email, password: server.users[1].password)
        }
    }

    @Test func loginManagerRedeemsTheNonceAndVerifiesTheIDToken() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let manager = LoginManager(presenter: AppSwitchPresenter(server: server), environment: environment)
        let result = try await manager.logIn(permissions: ["public_profile", "email"])
        #expect(!result.isCancelled)
        let token = try #require(environment.currentAccessToken)
        #expect(token.tokenString.hasPrefix("EAAG"))
        #expect(token.hasGranted(.email))
        #expect(environment.currentAuthenticationToken != nil)
        let me = try await GraphTransport(environment: environment).send(
            method: "GET", path: "me", parameters: ["fields": "name"], tokenString: token.tokenString)
        #expect(me.json?["name"]?.stringValue == server.users[1].name)
    }
}
