import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOFoundationEssentialsCompat

/// `POST /admin/api/scenario`: applies a scenario file to the running server (`gatehouse scenario apply`), or with
/// `?check=1` only reports the differences (`gatehouse scenario check`).
///
///     {"file": "shop.yaml", "yaml": "apps: …", "files": {"alice.png": "<base64>"}}
///
/// `files` carries the pictures the YAML names, read by the client next to its file. The reply lists the changes
/// (made, or that would be made), the apps' ids and secrets and the people's ids:
///
///     {"applied": true, "in_sync": false, "changes": ["people.alice: no person … on the server"],
///      "apps": [{"key": "shop", "id": …, "name": …, "secret": …, "client_token": …}], "people": [{"key": …, "id": …, "email": …}]}
///
/// A bad file answers 400 with every problem, each as `file:line:column: path: message`, and changes nothing.
/// Guarded like the rest of the admin API: a JSON body (no cross-site form can send one) and, in production mode,
/// an admin session.
struct ScenarioAPI: Sendable {
    let services: GatehouseServices
    let access: ConsoleAccess

    struct Body: Decodable {
        var yaml: String
        var file: String?
        var files: [String: String]?
    }

    func register(on router: Router<GatehouseRequestContext>) {
        router.post("admin/api/scenario") { request, _ in
            guard await access.allows(request) else { return AdminAPI.reply(AdminAPI.denied, status: .forbidden) }
            guard AdminAPI.isJSON(request) else {
                return AdminAPI.reply(
                    AdminAPI.error(415, "send the scenario as application/json"), status: .unsupportedMediaType)
            }
            let check = ["1", "true"].contains(request.uri.queryParameters["check"].map(String.init) ?? "")
            var request = request
            // Pictures travel inside the body: up to 2 MiB each, base64.
            guard let buffer = try? await request.collectBody(upTo: 64 << 20) else {
                return AdminAPI.reply(
                    AdminAPI.error(413, "the scenario is larger than 64 MB"), status: .contentTooLarge)
            }
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: buffer)) else {
                return AdminAPI.reply(
                    AdminAPI.error(400, "expected {\"yaml\": …, \"file\": …, \"files\": {…}}"), status: .badRequest)
            }
            return try await handle(body, check: check)
        }
    }

    /// The answer to an apply or check (shared with `/admin/api/v1/scenario` and `/admin/api/v1/state/reset`).
    static func reply(_ scenario: Scenario, _ outcome: ScenarioLoader.Outcome, check: Bool) -> JSONValue {
        let apps: [JSONValue] = scenario.apps.compactMap { entry in
            guard let app = outcome.apps.first(where: { $0.id == entry.id }) else { return nil }
            return [
                "key": .string(entry.key), "id": .string(app.id), "name": .string(app.name),
                "secret": .string(app.secret), "client_token": .string(app.clientToken),
            ]
        }
        return [
            "applied": .bool(!check && !outcome.changes.isEmpty), "in_sync": .bool(outcome.changes.isEmpty),
            "changes": .array(outcome.changes.map { .string($0.description) }),
            "apps": .array(apps),
            "people": .array(
                outcome.people.map { ["key": .string($0.key), "id": .string($0.id), "email": .string($0.email)] }),
        ]
    }

    private func handle(_ body: Body, check: Bool) async throws -> Response {
        let files = (body.files ?? [:]).compactMapValues { Data(base64Encoded: $0) }
        let name = body.file ?? "scenario"
        do {
            let scenario = try ScenarioParser(file: name, readFile: { files[$0] }).parse(body.yaml)
            let outcome = try await ScenarioLoader(services: services).apply(scenario, file: name, dryRun: check)
            return AdminAPI.reply(Self.reply(scenario, outcome, check: check), status: .ok)
        } catch let errors as ScenarioErrors {
            let reply: JSONValue = [
                "error": ["message": .string(errors.description), "type": "GatehouseAdminException", "code": 400],
                "errors": .array(errors.errors.map { .string($0.description) }),
            ]
            return AdminAPI.reply(reply, status: .badRequest)
        } catch StorageError.unavailable(let message) {
            return AdminAPI.reply(
                AdminAPI.error(503, "the database is unavailable (\(message))"), status: .serviceUnavailable)
        } catch let error as StorageError {
            return AdminAPI.reply(
                AdminAPI.error(
                    409, "the scenario could not be stored (\(error)); it may be partly applied, apply again"),
                status: .conflict)
        }
    }
}
