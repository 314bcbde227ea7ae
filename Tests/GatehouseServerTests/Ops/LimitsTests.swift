import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct LimitsTests {
    @Test func rateLimitStoreCountsAtomicallyPerWindowAndPurges() async throws {
        let server = try await TestServer.make()
        try await server.run { _ in
            let store = server.services.storage.rateLimits
            let expiry = server.clock.now().addingTimeInterval(60)
            // 40 concurrent increments of the same counter never lose one.
            let totals = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await store.increment(key: "k", windowStart: 100, amount: 1, expiresAt: expiry)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(totals.sorted() == Array(1...40))
            #expect(try await store.count(key: "k", windowStart: 100) == 40)
            #expect(try await store.count(key: "k", windowStart: 160) == 0)
            #expect(
                try await store.increment(
                    key: "k", windowStart: 160, amount: 5, expiresAt: expiry.addingTimeInterval(60)) == 5)
            #expect(try await store.purge(expiredBefore: expiry.addingTimeInterval(1)) == 1)
            #expect(try await store.count(key: "k", windowStart: 100) == 0)
            #expect(try await store.count(key: "k", windowStart: 160) == 5)
            try await store.reset(key: "k")
            #expect(try await store.count(key: "k", windowStart: 160) == 0)
        }
    }

    @Test func passwordAttemptsPerAccountEndIn429UntilTheWindowPasses() async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.loginAttemptsPerAccount = 3; $0.limits.loginWindowSeconds = 600
        })
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server)
            func attempt(_ password: String, email: String = "alice@example.com") async throws -> TestResponse {
                try await browser.submitLogin(
                    page: try await browser.get("/dialog/oauth?" + query), email: email, password: password)
            }
            for _ in 0..<3 { #expect(try await attempt("wrong").status == .seeOther) }
            // Even the right password is refused now, without checking it.
            let limited = try await attempt("alice-password")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.contentType] == "text/html; charset=utf-8")
            #expect(limited.headers[.retryAfter] == "600")
            #expect(limited.text.contains("Too many failed attempts."))
            #expect(limited.text.contains("For your security, wait 10 minutes and try again."))
            // Emails are one account whatever their case.
            do {
                let status = try await attempt("alice-password", email: "ALICE@example.com").status;
                #expect(status == .tooManyRequests)
            }
            // Another account is not affected.
            do {
                let status = try await attempt("bob-password", email: "bob@example.com").status;
                #expect(status == .seeOther)
            }
            server.clock.advance(by: 600)
            let ok = try await attempt("alice-password")
            #expect(ok.status == .seeOther)
            #expect(ok.location?.contains("gh_reauth=") == true)
        }
    }

    @Test func aCorrectPasswordClearsTheAccountsFailures() async throws {
        let server = try await TestServer.make(configure: { $0.limits.loginAttemptsPerAccount = 2 })
        try await server.run { client in
            let browser = Browser(client)
            let query = DialogFlowTests.query(server)
            func attempt(_ password: String) async throws -> HTTPResponse.Status {
                try await browser.submitLogin(
                    page: try await browser.get("/dialog/oauth?" + query), email: "bob@example.com", password: password
                ).status
            }
            do { let status = try await attempt("wrong"); #expect(status == .seeOther) }
            do { let status = try await attempt("bob-password"); #expect(status == .seeOther) }
            do { let status = try await attempt("wrong"); #expect(status == .seeOther) }
            do { let status = try await attempt("wrong"); #expect(status == .seeOther) }
            do { let status = try await attempt("bob-password"); #expect(status == .tooManyRequests) }
        }
    }

    @Test func graphAPILimitsAnswerWithFacebooksThrottlingCodes() async throws {
        let server = try await TestServer.make(configure: {
            $0.limits.appCallsPerWindow = 3; $0.limits.userCallsPerWindow = 2; $0.limits.apiWindowSeconds = 3600
        })
        try await server.run { client in
            let alice = try await server.token(for: server.alice)
            let bob = try await server.token(for: server.bob)
            #expect(try await client.execute(uri: "/me?access_token=\(alice)", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/me?access_token=\(alice)", method: .get).status == .ok)
            let user = try await client.execute(uri: "/me?access_token=\(alice)", method: .get)
            #expect(user.status == .forbidden)
            #expect(
                user.json
                    == .object([
                        "error": .object([
                            "message": "(#17) User request limit reached", "type": "OAuthException", "code": 17,
                        ])
                    ]))
            let app = try await client.execute(uri: "/me?access_token=\(bob)", method: .get)
            #expect(app.json["error"]?["code"] == .int(4))
            #expect(app.json["error"]?["message"] == .string("(#4) Application request limit reached"))
            server.clock.advance(by: 3600)
            #expect(try await client.execute(uri: "/me?access_token=\(bob)", method: .get).status == .ok)
        }
    }

    @Test func tokenEndpointCallsPerIPAnswer613() async throws {
        let server = try await TestServer.make(configure: { $0.limits.tokenEndpointCallsPerIP = 2 })
        try await server.run(.live) { client in
            let uri =
                "/oauth/access_token?client_id=\(server.app.id)&client_secret=\(server.app.secret)&grant_type=client_credentials"
            #expect(try await client.execute(uri: uri, method: .get).status == .ok)
            #expect(try await client.execute(uri: uri, method: .get).status == .ok)
            let limited = try await client.execute(uri: uri, method: .get)
            #expect(limited.status == .forbidden)
            #expect(
                limited.json
                    == .object([
                        "error": .object([
                            "message": "(#613) Calls to this api have exceeded the rate limit.",
                            "type": "OAuthException", "code": 613,
                        ])
                    ]))
        }
    }

    @Test func oversizedBodiesGet413WithAGraphError() async throws {
        let server = try await TestServer.make(configure: { $0.maxBodyBytes = 2048 })
        try await server.run(.live) { client in
            let token = try await server.token(for: server.alice)
            let body = ByteBuffer(string: "access_token=\(token)&message=" + String(repeating: "x", count: 4096))
            let r = try await client.execute(
                uri: "/me/feed", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: body
            )
            #expect(r.status == .contentTooLarge)
            #expect(r.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(
                r.json
                    == .object([
                        "error": .object([
                            "message": "(#100) The request body is larger than the limit of 2048 bytes",
                            "type": "OAuthException", "code": 100,
                        ])
                    ]))
            // Within the limit the same endpoint family answers normally.
            let small = try await client.execute(uri: "/me?access_token=\(token)", method: .get)
            #expect(small.status == .ok)
        }
    }
}
