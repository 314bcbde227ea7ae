import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

/// One management change, run through the server's admin API when `--server` is given, else on the local database
/// (`--data-dir`), where it is recorded in the audit log as the command line's (the server records its own).
enum ManagementOperation {
    /// Runs `remote` with the client when `--server` is given, else `local` on the local database; answers the API's
    /// JSON either way. `method`, `route` (as the admin API registers it) and `status` are what the audit log records.
    static func run(
        _ data: DataOptions, _ remote: RemoteOptions, method: String, route: String, status: Int, target: String? = nil,
        remote remoteBody: (AdminClient) async throws -> JSONValue,
        local localBody: (GatehouseServices) async throws -> JSONValue
    ) async throws -> JSONValue {
        if let client = try remote.client { return try await remoteBody(client) }
        return try await withServices(data) { s in
            let answer = try await localBody(s)
            await AuditLog(services: s).record(
                actor: .cli, method: method, route: "/admin/api/v1" + route,
                target: target ?? answer["id"]?.stringValue, status: status)
            return answer
        }
    }

    /// A person's id from an id or an email, on the local database.
    static func localPersonID(_ services: GatehouseServices, _ idOrEmail: String) async throws -> String {
        guard let user = try await services.accounts.findUser(idOrEmail) else { throw CLIError("no user \(idOrEmail)") }
        return user.id
    }
}
