import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import Testing

/// A scenario file's `account_state`: a new person starts in it, an existing one is moved into it (with the
/// state's side effects, as every path has), a person whose file states none keeps theirs, and a misspelt one
/// is a located error.
@Suite struct ScenarioAccountStateTests {
    static func yaml(_ state: String?) -> String {
        """
        apps:
          shop: {id: "1960000000000009", name: Shop, secret: shop-secret-0123456789abcdef, redirect_uris: [https://shop.example/cb]}
        people:
          alice: {id: "100000000000901", email: alice@example.com, first_name: Alice, last_name: Anders\(state.map { ", account_state: \($0)" } ?? "")}
        grants:
          - {app: shop, person: alice, granted: [email]}
        """
    }

    @Test func aFileSetsTheStateAndAnotherFileChangesIt() async throws {
        let server = try await ScenarioServer.make()
        let storage = server.services.storage
        try await server.loader.apply(try ScenarioFixtures.parse(Self.yaml("checkpointed")), file: "test.yaml")
        #expect(try await storage.users.find(id: "100000000000901")?.accountState == .checkpointed)
        // Stated the same: nothing to do. Not stated: the person keeps the state.
        #expect(
            try await server.loader.plan(try ScenarioFixtures.parse(Self.yaml("checkpointed")), file: "test.yaml")
                .changes.isEmpty)
        #expect(
            try await server.loader.plan(try ScenarioFixtures.parse(Self.yaml(nil)), file: "test.yaml").changes.isEmpty)
        // A browser session of the person ends when the file moves them into another state.
        try await storage.sessions.insert(
            BrowserSessionRecord(
                id: "s1", secretHash: "h1", userID: "100000000000901", createdAt: server.clock.now(),
                expiresAt: server.clock.now().addingTimeInterval(3600), authenticatedAt: server.clock.now()))
        let plan = try await server.loader.plan(try ScenarioFixtures.parse(Self.yaml("disabled")), file: "test.yaml")
        #expect(
            plan.changes.map(\.description) == [
                "people.alice: account_state is checkpointed on the server, disabled in the file"
            ])
        try await server.loader.apply(try ScenarioFixtures.parse(Self.yaml("disabled")), file: "test.yaml")
        #expect(try await storage.users.find(id: "100000000000901")?.accountState == .disabled)
        #expect(try await storage.sessions.find(secretHash: "h1") == nil)
        try await server.loader.apply(try ScenarioFixtures.parse(Self.yaml("active")), file: "test.yaml")
        #expect(try await storage.users.find(id: "100000000000901")?.accountState == .active)
        try await server.close()
    }

    @Test func aMisspeltStateIsALocatedError() {
        let errors = ScenarioFixtures.errors(Self.yaml("frozen"))
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("test.yaml:4:") == true, "\(errors)")
        #expect(
            errors.first?.contains(
                "people.alice.account_state: account_state must be one of active, checkpointed, unconfirmed, disabled, logged-out"
            ) == true, "\(errors)")
    }
}
