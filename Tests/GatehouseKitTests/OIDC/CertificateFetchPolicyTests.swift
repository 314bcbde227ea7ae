import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing

/// Issue 27 finding 8: how often and from where ``AuthenticationTokenVerifier`` fetches the server's certificates.
/// The fetch is replaced by a counter, so no server is needed: an unknown `kid` is refused before any signature
/// is checked.
@Suite struct CertificateFetchPolicyTests {
    final class Clock: SDKClock, @unchecked Sendable {
        let lock = NSLock()
        var instant = Date(timeIntervalSince1970: 1_800_000_000)
        func now() -> Date { lock.withLock { instant } }
        func advance(by seconds: TimeInterval) { lock.withLock { instant += seconds } }
    }

    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var fetches = 0
        func count() { lock.withLock { fetches += 1 } }
        var value: Int { lock.withLock { fetches } }
    }

    /// An RS256 JWS naming `kid`, with a signature that never matters (the kid is unknown).
    static func token(kid: String) -> String {
        Base64URL.encode(Array(#"{"alg":"RS256","kid":"\#(kid)","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(Array("{}".utf8)) + ".c2ln"
    }

    static func verifier(server: String, clock: Clock, counter: Counter) -> AuthenticationTokenVerifier {
        let settings = Settings()
        settings.serverURL = URL(string: server)!
        settings.appID = "1"
        return AuthenticationTokenVerifier(environment: GatehouseKitEnvironment(settings: settings, clock: clock)) {
            _ in
            counter.count()
            return [:]
        }
    }

    /// The refusal's message, or nil when the token was accepted (never, here).
    static func refusal(_ verifier: AuthenticationTokenVerifier, kid: String) async -> String? {
        do {
            _ = try await verifier.verify(token(kid: kid), nonce: "n")
            return nil
        } catch let error as LoginError {
            #expect(error.code == .invalidIDToken)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func unknownKidsFetchTheCertificatesAtMostOncePerInterval() async throws {
        let clock = Clock(), counter = Counter()
        let verifier = Self.verifier(server: "https://gatehouse.example", clock: clock, counter: counter)
        #expect(await Self.refusal(verifier, kid: "kid-1") == "no published key has kid kid-1")
        #expect(counter.value == 1)
        // A thousand made-up kids within the interval: not one more request.
        for i in 2...1001 {
            #expect(
                await Self.refusal(verifier, kid: "kid-\(i)")?.hasPrefix(
                    "no published key has kid kid-\(i) (the certificates were fetched less than 60 s ago)") == true)
        }
        #expect(counter.value == 1)
        clock.advance(by: AuthenticationTokenVerifier.refetchInterval - 1)
        _ = await Self.refusal(verifier, kid: "kid-x")
        #expect(counter.value == 1)
        clock.advance(by: 1)
        _ = await Self.refusal(verifier, kid: "kid-x")
        #expect(counter.value == 2)
    }

    @Test func certificatesComeOverHTTPSOrFromLoopbackOnly() async throws {
        let clock = Clock(), counter = Counter()
        let plain = Self.verifier(server: "http://gatehouse.example", clock: clock, counter: counter)
        #expect(
            await Self.refusal(plain, kid: "k")
                == "the certificates must come over https (plain http only from a loopback server), not from http://gatehouse.example"
        )
        #expect(counter.value == 0)

        for allowed in [
            "https://gatehouse.example", "http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:8080",
            "http://LOCALHOST", "http://[::1]:8080",
        ] {
            #expect(AuthenticationTokenVerifier.mayFetchCertificates(from: URL(string: allowed)!), "\(allowed)")
        }
        for refused in [
            "http://gatehouse.example", "http://10.0.0.1", "http://127.0.0.1.evil.example",
            "http://localhost.evil.example",
            "http://[::2]", "ftp://127.0.0.1", "http://128.0.0.1",
        ] {
            #expect(!AuthenticationTokenVerifier.mayFetchCertificates(from: URL(string: refused)!), "\(refused)")
        }
        // A loopback server is fetched from.
        _ = await Self.refusal(Self.verifier(server: "http://127.0.0.1:8080", clock: clock, counter: counter), kid: "k")
        #expect(counter.value == 1)
    }
}
