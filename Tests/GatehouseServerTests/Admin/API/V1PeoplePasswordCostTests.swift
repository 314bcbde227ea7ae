import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Logging
import Testing

@testable import GatehouseServer

/// Issue 43, item 1: development mode's people cost their rows (no hash without a password, bcrypt's minimum
/// cost with one); production keeps its cost, and raises a lower-cost hash at the next login.
@Suite struct V1PeoplePasswordCostTests {
    static let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }

    /// A server whose hasher is the one its configuration asks for, as `serve` builds it.
    static func server(_ mode: ServerMode) async throws -> TestServer {
        var configuration = GatehouseConfiguration(mode: mode)
        if mode == .production { configuration.publicURL = "https://gatehouse.test" }
        return try await TestServer.make(
            mode: mode, configure: { $0.publicURL = configuration.publicURL },
            passwords: BcryptPasswordHasher(configuration))
    }

    @Test(arguments: [ServerMode.development, .production])
    func theServerHashesAtItsConfiguredCost(mode: ServerMode) async throws {
        let scratch = try ScratchDirectory.create("password-cost")
        defer { scratch.remove() }
        let configuration = GatehouseConfiguration(dataDirectory: scratch.path, mode: mode)
        let services = try await GatehouseServerRunner.services(configuration: configuration, logger: Self.quiet)
        let hasher = try #require(services.passwords as? BcryptPasswordHasher)
        #expect(hasher.cost == (mode == .production ? 11 : 4))
        try await services.storage.shutdown()
    }

    @Test func developmentStoresNoHashWithoutAPasswordAndALowCostHashWithOne() async throws {
        let server = try await Self.server(.development)
        try await server.v1 { api in
            let bare = try await api.post(
                "/people", #"{"email":"nell@example.com","first_name":"Nell","last_name":"N"}"#)
            #expect(bare.status == .created)
            #expect(bare.json["password"] == nil)
            let id = try #require(bare.json["id"]?.stringValue)
            let stored = try #require(try await server.services.storage.users.find(id: id))
            #expect(stored.passwordHash == "")
            #expect(!stored.hasPassword)
            // No password logs them in at the login form (the picker does), and an empty guess is no key.
            let check = PasswordCheck.people(server.services)
            for guess in ["", "anything-at-all"] {
                guard case .refused = try await check.person(email: "nell@example.com", password: guess, ip: nil)
                else {
                    Issue.record("a person without a password logged in with \"\(guess)\"")
                    return
                }
            }

            let chosen = try await api.post(
                "/people",
                #"{"email":"olga@example.com","password":"olga-password","first_name":"Olga","last_name":"O"}"#)
            #expect(chosen.status == .created)
            #expect(chosen.json["password"] == nil)
            let olga = try #require(try await server.services.storage.users.find(email: "olga@example.com"))
            #expect(PasswordCost.of(olga.passwordHash) == 4)
            guard case .accepted = try await check.person(email: "olga@example.com", password: "olga-password", ip: nil)
            else {
                Issue.record("the chosen password did not log in")
                return
            }
            // A development server never re-hashes upwards what it made at its own cost.
            #expect(try await server.services.storage.users.find(id: olga.id)?.passwordHash == olga.passwordHash)
        }
    }

    @Test func productionKeepsItsCostAndChoosesAPasswordWhenNoneIsGiven() async throws {
        let server = try await Self.server(.production)
        let token = try await AdminTokens(services: server.services).create(name: "ops", readOnly: false).token
        try await server.run { client in
            let created = try await client.execute(
                uri: "/admin/api/v1/people", method: .post, headers: AdminReadScopeTests.headers(token, json: true),
                body: .init(string: #"{"email":"pia@example.com","first_name":"Pia","last_name":"P"}"#))
            #expect(created.status == .created)
            let password = try #require(created.json["password"]?.stringValue)
            #expect(password.count >= 16)
            let pia = try #require(try await server.services.storage.users.find(email: "pia@example.com"))
            #expect(PasswordCost.of(pia.passwordHash) == 11)
            #expect(try await server.services.passwords.verify(password, hash: pia.passwordHash))
        }
    }

    @Test func productionRaisesALowerCostHashAtTheNextLogin() async throws {
        let server = try await Self.server(.production)
        var alice = server.alice
        alice.passwordHash = try await BcryptPasswordHasher(cost: 4).hash("alice-password")
        try await server.services.storage.users.update(alice)
        _ = try await server.token(for: alice)
        let now = server.clock.now()
        let check = PasswordCheck.people(server.services)
        guard case .refused = try await check.person(email: "alice@example.com", password: "wrong-guess", ip: nil)
        else {
            Issue.record("a wrong password logged in")
            return
        }
        #expect(try await server.services.storage.users.find(id: alice.id)?.passwordHash == alice.passwordHash)
        guard
            case .accepted(let accepted) = try await check.person(
                email: "alice@example.com", password: "alice-password", ip: nil)
        else {
            Issue.record("the right password did not log in")
            return
        }
        let stored = try #require(try await server.services.storage.users.find(id: alice.id))
        #expect(PasswordCost.of(stored.passwordHash) == 11)
        #expect(accepted.passwordHash == stored.passwordHash)
        #expect(try await server.services.passwords.verify("alice-password", hash: stored.passwordHash))
        // A re-hash is not a password change: nothing is signed out.
        #expect(stored.passwordChangedAt == alice.passwordChangedAt)
        #expect(
            try await server.services.storage.tokens.live(appID: server.app.id, userID: alice.id, now: now).count == 1)
        try await server.close()
    }
}
