import Foundation
import GatehouseProtocol

extension GatehouseEmulator {
    /// What ``reset(to:)`` leaves behind.
    public enum ResetTarget: String, Sendable {
        /// No apps, people, grants, tokens or injections.
        case empty
        /// The development seed: the demo app and Alice, Bob and Carol (``app`` and ``users`` then name them).
        case seed
    }

    /// Wipes the server's state between tests (`POST /admin/api/v1/state/reset`): apps, people, grants, tokens and
    /// injected errors go, and with them what the last test left to see (events, the journal, mail, callbacks,
    /// Webhooks deliveries, rate-limit counters); the clock returns to real time; the signing keys stay, so
    /// id_tokens still verify.
    /// After `.seed`, ``app`` and ``users`` are the new seed's; after `.empty`, they name nothing until the next
    /// `.seed` reset.
    public func reset(to target: ResetTarget = .seed) async throws {
        let reply = try await admin.send("POST", "/state/reset", body: ["to": .string(target.rawValue)])
        guard target == .seed else { return }
        // The answer names the new seed; a server from before it did is asked through the API.
        if let named = try Self.seed(in: reply?["seed"]) {
            seed.value = named
        } else {
            seed.value = try await Self.findSeed(admin)
        }
    }

    /// The development seed as `POST /state/reset {"to":"seed"}` answers it; nil when the answer has none.
    static func seed(in json: JSONValue?) throws -> (app: TestApp, users: [TestUser])? {
        guard let json, let users = json["users"]?.arrayValue, json["app"]?["id"] != nil else { return nil }
        return (
            try TestApp(json["app"]),
            users.map {
                TestUser(
                    id: $0["id"]?.stringValue ?? "", name: $0["name"]?.stringValue ?? "",
                    email: $0["email"]?.stringValue ?? "", password: $0["password"]?.stringValue ?? "")
            }
        )
    }

    /// Wipes the server's state and loads a scenario file instead (see ``applyScenario(_:file:pictures:checkOnly:)``
    /// for the arguments). A bad file throws a 400 ``GatehouseAdminError`` before anything is erased.
    public func reset(toScenario text: String, file: String = "scenario.yaml", pictures: [String: Data] = [:])
        async throws
    {
        try await admin.send(
            "POST", "/state/reset", body: ["scenario": Self.scenarioBody(text, file: file, pictures: pictures)])
    }

    /// Applies a scenario file (YAML or JSON, the format of `gatehouse scenario apply`) to the server
    /// (`POST /admin/api/v1/scenario`): its apps, people, friendships, grants and tokens are made to match it.
    ///
    /// - Parameters:
    ///   - text: the file's text.
    ///   - file: its name, used in error messages (`shop.yaml:3:5: …`).
    ///   - pictures: the picture files the scenario names, by name.
    ///   - checkOnly: report what would change without changing anything.
    /// - Returns: the changes (made, or that would be made) and the ids of the scenario's apps and people.
    /// - Throws: a 400 ``GatehouseAdminError`` listing every problem of a bad file; nothing changes then.
    @discardableResult
    public func applyScenario(
        _ text: String, file: String = "scenario.yaml", pictures: [String: Data] = [:], checkOnly: Bool = false
    ) async throws -> ScenarioOutcome {
        let reply = try await admin.send(
            "POST", "/scenario", query: checkOnly ? ["check": "true"] : [:],
            body: Self.scenarioBody(text, file: file, pictures: pictures))
        var apps: [String: TestApp] = [:], people: [String: String] = [:]
        for app in reply?["apps"]?.arrayValue ?? [] {
            if let key = app["key"]?.stringValue { apps[key] = try TestApp(app) }
        }
        for person in reply?["people"]?.arrayValue ?? [] {
            if let key = person["key"]?.stringValue, let id = person["id"]?.stringValue { people[key] = id }
        }
        return ScenarioOutcome(
            applied: reply?["applied"]?.boolValue ?? false, inSync: reply?["in_sync"]?.boolValue ?? false,
            changes: reply?["changes"]?.strings ?? [], apps: apps, personIDs: people)
    }

    /// `{yaml, file, files}`: a scenario as the API takes it, pictures in base64.
    static func scenarioBody(_ text: String, file: String, pictures: [String: Data]) -> JSONValue {
        [
            "yaml": .string(text), "file": .string(file),
            "files": .object(
                JSONObject(
                    pictures.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.base64EncodedString())) })),
        ]
    }

    /// What ``applyScenario(_:file:pictures:checkOnly:)`` reports.
    public struct ScenarioOutcome: Sendable, Equatable {
        /// Whether anything was changed.
        public let applied: Bool
        /// Whether the server already matched the file.
        public let inSync: Bool
        /// Each difference, e.g. `people.alice: no person … on the server`.
        public let changes: [String]
        /// The scenario's apps by their key in the file (the apps a check-only call would make are absent).
        public let apps: [String: TestApp]
        /// The scenario's people's ids by their key in the file.
        public let personIDs: [String: String]
    }

    /// The development seed's people: their emails and passwords are fixed (README, "Quick start").
    static let seedPeople = ["alice", "bob", "carol"]

    /// The development seed on a server: the "Gatehouse Demo" app and Alice, Bob and Carol, found through the API.
    /// - Throws: ``EmulatorError/notSeeded`` when the server has no such app or people.
    static func findSeed(_ admin: AdminConnection) async throws -> (app: TestApp, users: [TestUser]) {
        let apps = try await admin.list("/apps")
        guard let demo = apps.first(where: { $0["name"]?.stringValue == "Gatehouse Demo" }) else {
            throw EmulatorError.notSeeded
        }
        let app = try TestApp(demo)
        var users: [TestUser] = []
        for first in seedPeople {
            let email = "\(first)@gatehouse.test"
            guard let person = try await admin.list("/people", query: ["email": email]).first,
                let id = person["id"]?.stringValue
            else {
                throw EmulatorError.notSeeded
            }
            users.append(
                TestUser(id: id, name: person["name"]?.stringValue ?? "", email: email, password: "\(first)-gatehouse"))
        }
        return (app, users)
    }
}
