import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOFoundationEssentialsCompat

/// `/state` and `/scenario`: reset between tests (to empty, to the development seed, or to a scenario), export,
/// import, and apply or check a scenario, through the same ``StateTransfer`` and ``ScenarioLoader`` as the console
/// and the CLI.
struct V1State: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .post, path: "/state/reset", bodyLimit: 64 << 20, bodyOptional: true) {
                try await reset($0)
            },
            V1Route(method: .get, path: "/state") { call in
                try await call.requireSecretReads()
                let withKeys = try V1People.flag(call.query("include_private_keys"), field: "include_private_keys")
                let data = try EmulatorState.encoder.encode(
                    try await StateTransfer(services: services).export(includePrivateKeys: withKeys))
                var headers = HTTPFields()
                headers[.contentType] = "application/json; charset=UTF-8"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
            },
            V1Route(method: .put, path: "/state", bodyLimit: 256 << 20) { call in
                try StateReplacement.check(services)
                let state: EmulatorState
                do {
                    state = try StateTransfer.decode(Data(buffer: call.raw ?? ByteBuffer()))
                } catch let error as StateTransfer.ImportError {
                    throw Problem.validation("body", error.description)
                }
                try await StateTransfer(services: services).replace(with: state)
                return AdminAPIv1.reply(try await counts())
            },
            V1Route(method: .post, path: "/scenario", bodyLimit: 64 << 20) { call in
                let check = try V1People.flag(call.query("check"), field: "check")
                var body = try call.body()
                let (scenario, file) = try Self.scenario(&body)
                try body.finish()
                let outcome = try await ScenarioLoader(services: services).apply(scenario, file: file, dryRun: check)
                return AdminAPIv1.reply(outcome.json(scenario, check: check))
            },
        ]
    }

    /// `POST /state/reset {"to": "empty"|"seed"}` (`{}` is empty) or `{"scenario": {"yaml": …, "file"?: …,
    /// "files"?: {…}}}`. The scenario is parsed before anything is erased, so a bad one leaves the state as it was.
    /// Signing keys are kept, so id_tokens stay verifiable; the clock returns to real time.
    func reset(_ call: V1Call) async throws -> Response {
        try StateReplacement.check(services)
        var body = try call.body()
        let target = try body.string("to", max: 10)
        var scenario: (Scenario, String)?
        if let value = body.value("scenario"), !value.isNull {
            var inner = try RequestBody(value)
            scenario = try Self.scenario(&inner, prefix: "scenario.")
            try inner.finish(prefix: "scenario.")
        }
        try body.finish()
        switch (target, scenario) {
        case (nil, nil), ("empty", nil), ("seed", nil), (nil, .some): break
        case (.some, .some): throw Problem.validation("to", "give either to or scenario, not both")
        default: throw Problem.validation("to", "to must be empty or seed (or give a scenario)")
        }
        // The counts are those of the rows written: a reset costs one transaction and no reads back.
        var reply: JSONObject = ["apps": 0, "people": 0, "tokens": 0]
        if target == "seed" {
            let seeder = DevSeeder(services: services)
            let seed = try await seeder.reseed()
            // The walkthrough's file follows the new ids, as it does at start-up.
            try? seeder.write(seed)
            reply["apps"] = 1
            reply["people"] = .int(Int64(seed.users.count))
            reply["seed"] = (try? JSONValue.parse(JSONEncoder().encode(seed))) ?? .null
        } else {
            try await StateTransfer(services: services).replace(
                with: StoredState(createdAt: services.clock.now()))
        }
        if let (scenario, file) = scenario {
            let outcome = try await ScenarioLoader(services: services).apply(scenario, file: file)
            reply = try await counts().objectValue ?? reply
            reply["scenario"] = outcome.json(scenario, check: false)
        }
        return AdminAPIv1.reply(.object(reply))
    }

    /// A scenario body `{yaml, file?, files?}` (YAML or JSON text: JSON is YAML), parsed; problems answer 400 naming `yaml`.
    static func scenario(_ body: inout RequestBody, prefix: String = "") throws -> (Scenario, String) {
        let yaml = try body.string("yaml", max: 64 << 20) ?? ""
        guard !yaml.isEmpty else {
            throw Problem.validation(prefix + "yaml", "\(prefix)yaml is required (the scenario's YAML or JSON text)")
        }
        let file = try body.string("file", max: 200) ?? "scenario"
        var files: [String: Data] = [:]
        if let value = body.value("files"), !value.isNull {
            guard let object = value.objectValue else {
                throw Problem.validation(prefix + "files", "files maps file names to base64")
            }
            for (name, content) in object.pairs {
                guard let data = content.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
                    throw Problem.validation(prefix + "files", "files[\(GraphError.echo(name))] must be base64")
                }
                files[name] = data
            }
        }
        do {
            return (try ScenarioParser(file: file, readFile: { files[$0] }).parse(yaml), file)
        } catch let errors as ScenarioErrors {
            throw Problem.validation(prefix + "yaml", errors.description)
        }
    }

    private func counts() async throws -> JSONValue {
        let storage = services.storage
        return [
            "apps": .int(Int64(try await storage.apps.list().count)),
            "people": .int(Int64(try await storage.users.list().count)),
            "tokens": .int(
                Int64(try await storage.tokens.live(appID: nil, userID: nil, now: services.clock.now()).count)),
        ]
    }
}

extension ScenarioLoader.Outcome {
    /// The answer to an apply or a check (`POST /scenario`, and `scenario` in `POST /state/reset`): the changes made,
    /// or that would be made, the apps' ids and secrets and the people's ids.
    ///
    ///     {"applied": true, "in_sync": false, "changes": ["people.alice: no person … on the server"],
    ///      "apps": [{"key": "shop", "id": …, "name": …, "secret": …, "client_token": …}],
    ///      "people": [{"key": …, "id": …, "email": …}]}
    func json(_ scenario: Scenario, check: Bool) -> JSONValue {
        let apps: [JSONValue] = scenario.apps.compactMap { entry in
            guard let app = self.apps.first(where: { $0.id == entry.id }) else { return nil }
            return [
                "key": .string(entry.key), "id": .string(app.id), "name": .string(app.name),
                "secret": .string(app.secret), "client_token": .string(app.clientToken),
            ]
        }
        return [
            "applied": .bool(!check && !changes.isEmpty), "in_sync": .bool(changes.isEmpty),
            "changes": .array(changes.map { .string($0.description) }),
            "apps": .array(apps),
            "people": .array(
                people.map { ["key": .string($0.key), "id": .string($0.id), "email": .string($0.email)] }),
        ]
    }
}

/// Issue 39, finding 4: replacing the whole state (reset to empty or to the seed, import) wipes every person and
/// app, and the seed publishes a password. Development mode always allows it; production only when the operator
/// turned on `allow_state_replace` (`--allow-state-replace`), as the clock and error injection refuse production.
enum StateReplacement {
    static let refusal =
        "production refuses to replace the whole state (it wipes every person and app); start the server with "
        + "--allow-state-replace (allow_state_replace: true) to allow it"

    /// - Throws: a `forbidden` ``Problem`` in production unless allowed.
    static func check(_ services: GatehouseServices) throws {
        guard isAllowed(services.configuration) else { throw Problem(.forbidden, refusal) }
    }

    static func isAllowed(_ configuration: GatehouseConfiguration) -> Bool {
        configuration.isDevelopment || configuration.allowStateReplace
    }
}
