import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit
import GatehouseProtocol

/// `gatehouse graph [GET|POST|DELETE] PATH [-f key=value…]`: one Graph API call with the cached token.
struct GraphCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Call the Graph API with the cached token, e.g. `gatehouse graph me -f fields=id,name,email`.")
    @Argument(help: "GET (default), POST or DELETE, then the path; or just the path.") var words: [String]
    @Option(name: .short, help: "A parameter key=value (repeatable).") var field: [String] = []
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        var words = self.words
        var method = HTTPMethod.get
        if let first = words.first, ["GET", "POST", "DELETE"].contains(first.uppercased()), words.count > 1 {
            method = first.uppercased() == "POST" ? .post : (first.uppercased() == "DELETE" ? .delete : .get)
            words.removeFirst()
        }
        guard words.count == 1, var path = words.first else {
            throw exitWith(ClientExit.failed, "give one path, e.g. `gatehouse graph me`")
        }
        while path.hasPrefix("/") { path.removeFirst() }
        var parameters: [String: Any] = [:]
        for pair in field {
            guard let eq = pair.firstIndex(of: "=") else {
                throw exitWith(ClientExit.failed, "-f takes key=value, not \(pair)")
            }
            parameters[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        do {
            let reply = try await graphJSON(path, parameters: parameters, method: method)
            print(client.json ? reply.serialized() : prettyJSON(reply))
        } catch {
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        }
    }
}

/// `gatehouse permissions [list | revoke NAME | revoke-all]`.
struct PermissionsCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permissions", abstract: "List granted permissions, revoke one, or remove the app.")
    @Argument(help: "list (default), revoke NAME, or revoke-all.") var words: [String] = []
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        guard AccessToken.current != nil else {
            throw exitWith(ClientExit.notLoggedIn, "not logged in. Run `gatehouse login`.")
        }
        do {
            switch words.first ?? "list" {
            case "list":
                let reply = try await graphJSON("me/permissions")
                if client.json { print(reply.serialized()); return }
                for item in reply["data"]?.arrayValue ?? [] {
                    print("\(item["permission"]?.stringValue ?? "?")  \(item["status"]?.stringValue ?? "?")")
                }
            case "revoke":
                guard words.count == 2 else {
                    throw exitWith(ClientExit.failed, "usage: gatehouse permissions revoke NAME")
                }
                _ = try await graphJSON("me/permissions/\(words[1])", method: .delete)
                _ = try? await AccessToken.refreshCurrentAccessToken()
                if client.json { try printJSON(["success": true]) } else { print("Revoked \(words[1]).") }
            case "revoke-all":
                _ = try await graphJSON("me/permissions", method: .delete)
                // The app is gone from the account: neither the access token nor the id_token stands for anything now.
                AccessToken.current = nil
                AuthenticationToken.current = nil
                if client.json {
                    try printJSON(["success": true])
                } else {
                    print("Removed the app from your account; the token is gone.")
                }
            case let other:
                throw exitWith(ClientExit.failed, "unknown action \(other): use list, revoke NAME or revoke-all")
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        }
    }
}
