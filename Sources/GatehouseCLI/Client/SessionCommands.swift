import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit
import GatehouseProtocol

/// `gatehouse logout`: forgets the cached token (client side only, as Facebook's `logOut()`).
struct LogoutCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Forget the cached login.")
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        let had = AccessToken.current != nil || AuthenticationToken.current != nil
        LoginManager(presenter: PrintOnlyPresenter(), environment: environment).logOut()
        if client.json { try printJSON(["logged_out": had]) } else { print(had ? "Logged out." : "Not logged in.") }
    }
}

/// A presenter that never shows anything, for commands that need a `LoginManager` but no dialog.
struct PrintOnlyPresenter: LoginDialogPresenting {
    func prepare() async throws -> String { "http://127.0.0.1/callback" }
    func present(_ url: URL) async throws -> URL? { nil }
}

/// `gatehouse whoami`: who the cached token belongs to, asked of the server.
struct WhoamiCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Show who is logged in.",
        discussion: "Exit status 4 when nobody is logged in or the login expired.")
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        guard let token = AccessToken.current else {
            if let idToken = AuthenticationToken.current, let claims = IDTokenText.claims(of: idToken.tokenString) {
                if client.json {
                    try printJSON(AnyJSON(claims))
                } else {
                    print(
                        "\(claims["name"]?.stringValue ?? "?") (Limited Login, sub \(claims["sub"]?.stringValue ?? "?"))"
                    )
                }
                return
            }
            throw exitWith(ClientExit.notLoggedIn, "not logged in. Run `gatehouse login`.")
        }
        do {
            let me = try await graphJSON("me", parameters: ["fields": "id,name,email"])
            if client.json { try printJSON(AnyJSON(me)); return }
            print(
                "\(me["name"]?.stringValue ?? "?") (user id \(me["id"]?.stringValue ?? token.userID))"
                    + (me["email"]?.stringValue.map { " <\($0)>" } ?? ""))
        } catch {
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        }
    }
}

/// `gatehouse token [show|refresh]`.
struct TokenCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Show or refresh the cached token.")
    @Argument(help: "show (default) or refresh.") var action: String = "show"
    @Flag(help: "Also print the token text itself.") var reveal = false
    @OptionGroup var client: ClientOptions

    struct TokenJSON: Encodable {
        var user_id, app_id: String
        var permissions, declined_permissions, expired_permissions: [String]
        var expires_at, data_access_expires_at, refreshed_at: Date
        var is_expired: Bool
        var token: String?
        var id_token_claims: AnyJSON?
    }

    func execute() async throws {
        let environment = try client.installEnvironment()
        switch action {
        case "show": break
        case "refresh":
            guard AccessToken.current != nil else {
                throw exitWith(ClientExit.notLoggedIn, "not logged in. Run `gatehouse login`.")
            }
            do { _ = try await AccessToken.refreshCurrentAccessToken() } catch {
                throw await clientFailure(
                    error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
            }
        default:
            throw exitWith(ClientExit.failed, "unknown action \(action): use show or refresh")
        }
        let claims = AuthenticationToken.current.flatMap { IDTokenText.claims(of: $0.tokenString) }
        guard let token = AccessToken.current else {
            if let claims {
                if client.json {
                    try printJSON(AnyJSON(claims))
                } else {
                    print("id_token claims (Limited Login):\n" + prettyJSON(claims))
                }; return
            }
            throw exitWith(ClientExit.notLoggedIn, "not logged in. Run `gatehouse login`.")
        }
        let out = TokenJSON(
            user_id: token.userID, app_id: token.appID, permissions: token.permissions.map(\.name).sorted(),
            declined_permissions: token.declinedPermissions.map(\.name).sorted(),
            expired_permissions: token.expiredPermissions.map(\.name).sorted(),
            expires_at: token.expirationDate, data_access_expires_at: token.dataAccessExpirationDate,
            refreshed_at: token.refreshDate,
            is_expired: token.isExpired, token: reveal ? token.tokenString : nil,
            id_token_claims: claims.map { AnyJSON($0) })
        if client.json { try printJSON(out); return }
        print(
            """
            user id:        \(out.user_id)
            app id:         \(out.app_id)
            permissions:    \(out.permissions.joined(separator: ", "))
            declined:       \(out.declined_permissions.isEmpty ? "(none)" : out.declined_permissions.joined(separator: ", "))
            expires:        \(out.expires_at)\(out.is_expired ? " (expired)" : "")
            data access to: \(out.data_access_expires_at)
            refreshed:      \(out.refreshed_at)
            """)
        if let text = out.token { print("token:          \(text)") }
        if let claims { print("id_token claims:\n" + prettyJSON(claims)) }
    }
}
