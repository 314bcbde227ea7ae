import GatehouseCore
import Foundation
import GatehouseProtocol
import GatehouseServer
import Logging

/// Opens the same database the server uses, for management commands (safe while the server runs: WAL + busy timeout).
func withServices<T>(_ data: DataOptions, _ body: (GatehouseServices) async throws -> T) async throws -> T {
    var logger = Logger(label: "gatehouse.cli")
    logger.logLevel = .warning
    var configuration = GatehouseConfiguration(dataDirectory: data.resolved, database: try data.resolvedDatabase())
    // Management commands read sealed signing keys with the same master key as the server.
    configuration.masterKeyFile = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY_FILE"]
    let services: GatehouseServices
    do {
        // The database may be a production server's, so a password set here (`admin create`, `users create`) is
        // hashed at production's cost unless GATEHOUSE_PASSWORD_COST says otherwise: never weaker than production.
        let cost = ProcessInfo.processInfo.environment.filter { $0.key == "GATEHOUSE_PASSWORD_COST" }
        configuration.passwordCost =
            try ConfigurationLoader(environment: cost).load().configuration.passwordCost ?? PasswordCost.production
        services = try await GatehouseServerRunner.services(configuration: configuration, logger: logger)
    } catch StorageError.unavailable(let message) {
        throw fail(message)
    } catch let error as ConfigurationError {
        throw fail(error.message)
    }
    do {
        let result = try await body(services)
        try await services.storage.shutdown()
        return result
    } catch {
        try? await services.storage.shutdown()
        if let account = error as? AccountError { throw fail(account.description) }
        if let cli = error as? CLIError { throw fail(cli.description) }
        // The admin API's own checks, when a command runs its operation on the local database.
        if let problem = error as? Problem { throw fail(problem.detail) }
        throw error
    }
}

/// The JSON shape of an app in `--json` output.
struct AppJSON: Encodable {
    var id, name, secret: String
    var client_token: String
    var redirect_uris: [String]
    var js_sdk_domains: [String]
    var require_app_secret: Bool
    var require_pkce: Bool
    var approved_permissions: [String]
    var deauthorize_callback_url: String?
    var data_deletion_callback_url: String?
    var roles: [RoleJSON]
    var created_at: Date

    struct RoleJSON: Encodable { var user_id: String; var role: String }

    init(_ app: AppRecord, roles: [(userID: String, role: AppRole)]) {
        id = app.id; name = app.name; secret = app.secret; client_token = app.clientToken
        redirect_uris = app.redirectURIs; js_sdk_domains = app.jsSDKDomains; require_app_secret = app.requireAppSecret;
        require_pkce = app.requirePKCE
        approved_permissions = app.approvedPermissions; deauthorize_callback_url = app.deauthorizeCallbackURL
        data_deletion_callback_url = app.dataDeletionCallbackURL; created_at = app.createdAt
        self.roles = roles.map { RoleJSON(user_id: $0.userID, role: $0.role.rawValue) }
    }
}

/// The JSON shape of a person in `--json` output (never the password hash). Besides the account, the profile
/// fields are the field table's (`UserFieldValue.editable`), each left out when unset.
struct UserJSON: Encodable {
    var id, email, name, first_name, last_name: String
    var test_user_of: String?
    var created_at: Date
    var account_state: String
    var user: UserRecord

    init(_ user: UserRecord) {
        self.user = user
        account_state = user.accountState.rawValue
        id = user.id; email = user.email; name = user.fullName; first_name = user.firstName; last_name = user.lastName
        test_user_of = user.testUserOfAppID
        created_at = user.createdAt
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(id, forKey: Key("id"))
        try c.encode(email, forKey: Key("email"))
        try c.encode(name, forKey: Key("name"))
        try c.encode(first_name, forKey: Key("first_name"))
        try c.encode(last_name, forKey: Key("last_name"))
        try c.encodeIfPresent(test_user_of, forKey: Key("test_user_of"))
        try c.encode(created_at, forKey: Key("created_at"))
        try c.encode(account_state, forKey: Key("account_state"))
        for entry in UserFieldValue.editable {
            let key = Key(entry.field.name)
            switch entry.kind {
            case .text(let path, _, _): try c.encodeIfPresent(user[keyPath: path], forKey: key)
            case .place(let path, _, _): try c.encodeIfPresent(user[keyPath: path], forKey: key)
            case .derived, .edge: break
            }
        }
    }
}
