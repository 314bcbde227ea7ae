import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 39, finding 2: random session cookies must not grow what every cookie-bearing request pays for. Activity
/// is remembered only for sessions that exist, and the memory of recent touches is bounded, with constant work
/// per request whatever strangers send.
@Suite struct SessionActivityFloodTests {
    @Test func randomCookiesLeaveNothingBehind() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for _ in 0..<2_000 {
                let cookie = "gh_session=" + server.services.random.alphanumeric(bits: 128)
                let page = try await client.execute(uri: "/login", method: .get, headers: [.cookie: cookie])
                #expect(page.status == .ok)
            }
            #expect(server.services.sessionTouches.count == 0)

            // A real session is recorded, once per interval.
            let browser = Browser(client)
            _ = try await TwoFactorLoginTests.logInToSettings(browser)
            for _ in 0..<3 { _ = try await browser.get("/settings/security") }
            #expect(server.services.sessionTouches.count == 1)
            #expect(try await server.services.storage.sessionActivity?.list(userID: server.alice.id).count == 1)
        }
    }

    @Test func recentTouchesAreBoundedAndForgetByGeneration() {
        let touches = RecentTouches(interval: 300, capacity: 3)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(!touches.seen("a", now: start))
        touches.record("a", now: start)
        #expect(touches.seen("a", now: start.addingTimeInterval(299)))
        #expect(!touches.seen("a", now: start.addingTimeInterval(300)))
        // Past the capacity nothing more is remembered (those sessions are looked up again: constant work).
        for key in ["b", "c", "d", "e"] { touches.record(key, now: start) }
        #expect(touches.count == 3)
        #expect(!touches.seen("e", now: start))
        // Two intervals on, a generation has been dropped whole, without walking it entry by entry.
        touches.record("f", now: start.addingTimeInterval(301))
        touches.record("g", now: start.addingTimeInterval(602))
        #expect(touches.count == 2)
    }
}
