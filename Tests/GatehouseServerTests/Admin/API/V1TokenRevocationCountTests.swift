import Foundation
import GatehouseCore
import GatehouseProtocol
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// `POST /admin/api/v1/tokens/revoke` answers how many live tokens it ended (one `token.revoked` each), not how
/// many it read: a token another revocation ends first, or one whose expiry has passed, is not counted.
@Suite struct V1TokenRevocationCountTests {
    @Test func aTokenRevokedMeanwhileIsNotCounted() async throws {
        let server = try await TestServer.make()
        var minted: [String] = []
        for _ in 0..<3 {
            _ = try await server.token(for: server.bob)
            minted.append(try #require(try await Self.live(server).first?.id))
        }
        let tokens = minted
        // Another revocation ends the newest token between the route's read and its own revocations.
        let meanwhile = server.revokingOneTokenOnRead()
        try await meanwhile.v1 { api in
            let reply = try await api.post("/tokens/revoke", #"{"app_id":"\#(server.app.id)"}"#)
            #expect(reply.status == .ok)
            #expect(reply.text == #"{"revoked":2}"#)
            #expect(try await Self.live(server).isEmpty)
            // Three tokens ended, each announced once: the one revoked meanwhile and the route's two.
            let revoked = try await LoginAndRevocationEventTests.events(server, [.tokenRevoked])
            #expect(revoked.compactMap { $0.details["token_id"] }.sorted() == tokens.sorted())
            #expect(revoked.allSatisfy { $0.details["scope"] == "token" && $0.personID == server.bob.id })
        }
    }

    @Test func anExpiredTokenOfThePersonIsNotCounted() async throws {
        let server = try await TestServer.make()
        _ = try await server.token(for: server.bob, lifetime: 60)
        let expired = try #require(try await Self.live(server).first?.id)
        server.clock.advance(by: 120)
        _ = try await server.token(for: server.bob)
        _ = try await server.token(for: server.bob)
        let live = try await Self.live(server).map(\.id)
        #expect(live.count == 2)
        try await server.v1 { api in
            let both = #"{"app_id":"\#(server.app.id)","person_id":"\#(server.bob.id)"}"#
            let reply = try await api.post("/tokens/revoke", #"{"person_id":"\#(server.bob.id)"}"#)
            #expect(reply.status == .ok)
            #expect(reply.text == #"{"revoked":2}"#)
            // Nothing left to end: none counted, whichever subjects are named.
            #expect(
                try await api.post("/tokens/revoke", #"{"person_id":"\#(server.bob.id)"}"#).text == #"{"revoked":0}"#)
            #expect(try await api.post("/tokens/revoke", both).text == #"{"revoked":0}"#)
            #expect(
                try await api.post("/tokens/revoke", #"{"app_id":"\#(server.app.id)"}"#).text == #"{"revoked":0}"#)
            let revoked = try await LoginAndRevocationEventTests.events(server, [.tokenRevoked])
            #expect(revoked.compactMap { $0.details["token_id"] }.sorted() == live.sorted())
            #expect(!revoked.contains { $0.details["token_id"] == expired })
            #expect(revoked.allSatisfy { $0.details["scope"] == "person" })
        }
    }

    static func live(_ server: TestServer) async throws -> [TokenRecord] {
        try await server.services.storage.tokens.live(appID: nil, userID: nil, now: server.clock.now())
    }
}

extension TestServer {
    /// The same server whose token store, each time the live tokens are read, revokes the newest of them through
    /// the server's own (announcing) store, as a revocation on another node would.
    fileprivate func revokingOneTokenOnRead() -> TestServer {
        var storage = services.storage
        storage.tokens = RevokedOnRead(base: storage.tokens, clock: clock)
        // The server's store below already announces each revocation; this second layer's announcements go nowhere.
        let meanwhile = GatehouseServices(
            configuration: services.configuration, storage: storage, clock: clock,
            passwords: BcryptPasswordHasher(cost: 4), callbacks: notifier, logger: services.logger,
            clockControl: clock, events: UnheardEvents())
        return TestServer(
            services: meanwhile, clock: clock, notifier: notifier, app: app, alice: alice, bob: bob, scratch: scratch)
    }
}

private struct UnheardEvents: EventRecorder {
    func record(_ type: EventType, id: String?, appID: String?, personID: String?, details: [String: String]) async {}
}

private struct RevokedOnRead: TokenStore {
    let base: any TokenStore
    let clock: AdjustableClock

    func live(appID: String?, userID: String?, now: Date) async throws -> [TokenRecord] {
        let live = try await base.live(appID: appID, userID: userID, now: now)
        if let newest = live.first { try await base.revoke(id: newest.id, at: clock.now()) }
        return live
    }
    func insert(_ token: TokenRecord) async throws { try await base.insert(token) }
    func find(tokenHash: String) async throws -> TokenRecord? { try await base.find(tokenHash: tokenHash) }
    func setExpiry(id: String, expiresAt: Date?) async throws { try await base.setExpiry(id: id, expiresAt: expiresAt) }
    func revoke(id: String, at: Date) async throws -> [TokenRecord] { try await base.revoke(id: id, at: at) }
    func revokeAll(appID: String, userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(appID: appID, userID: userID, at: at)
    }
    func revokeAll(userID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(userID: userID, at: at)
    }
    func revokeAll(codeID: String, at: Date) async throws -> [TokenRecord] {
        try await base.revokeAll(codeID: codeID, at: at)
    }
}
