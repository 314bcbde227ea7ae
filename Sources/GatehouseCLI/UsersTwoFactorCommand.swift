import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users two-factor PERSON on|off|show`: gives a person (usually a test user) two-factor login, in the
    /// local database or, with `--server`, through the admin API's `/people/{id}/two_factor`.
    struct TwoFactor: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "two-factor",
            abstract: "Turn a person's two-factor login on or off, or show whether it is on.",
            discussion: """
                on: logins stop at the login code checkpoint until the code from the secret is typed (development \
                mode shows it on the page). Prints the base32 secret, its otpauth:// URI and ten recovery codes, once. \
                show: whether it is on, and in development mode (with --server) the code the checkpoint accepts now.
                """)
        @Argument(help: "The person's id or email.") var person: String
        @Argument(help: "on, off or show.") var action: String
        @Option(help: "With on: the base32 secret to use (default: 20 random bytes).") var secret: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func validate() throws {
            guard ["on", "off", "show"].contains(action) else {
                throw ValidationError("unknown action \"\(action)\"; use on, off or show")
            }
            if secret != nil, action != "on" { throw ValidationError("--secret goes with on") }
        }

        func execute() async throws {
            let result: JSONValue
            if let client = try remote.client {
                let id = try await RemoteManagement.personID(client, person)
                let path = "/people/\(AdminClient.escape(id))/two_factor"
                switch action {
                case "on":
                    result =
                        try await client.v1("PUT", path, body: secret.map { ["secret": .string($0)] } ?? [:]) ?? .null
                case "off":
                    _ = try await client.v1("DELETE", path)
                    result = ["enabled": false]
                default: result = try await client.v1("GET", path) ?? .null
                }
            } else {
                let (action, secret, person) = (action, secret, person)
                result = try await withServices(data) { s in
                    guard let user = try await s.accounts.findUser(person) else { throw CLIError("no user \(person)") }
                    switch action {
                    case "on":
                        let on = try await s.accounts.enableTwoFactor(for: user, secret: secret)
                        return [
                            "enabled": true, "secret": .string(on.secret), "otpauth_uri": .string(on.provisioningURI),
                            "recovery_codes": .array(on.recoveryCodes.map(JSONValue.string)),
                        ]
                    case "off":
                        try await s.accounts.disableTwoFactor(for: user)
                        return ["enabled": false]
                    default:
                        return ["enabled": .bool(try await s.accounts.hasTwoFactor(user))]
                    }
                }
            }
            report(result)
        }

        private func report(_ result: JSONValue) {
            if json { return print(prettyJSON(result)) }
            print("Two-factor login is \(result["enabled"]?.boolValue == true ? "on" : "off") for \(person)")
            if let secret = result["secret"]?.stringValue { print("Secret: \(secret)") }
            if let uri = result["otpauth_uri"]?.stringValue { print("URI: \(uri)") }
            if case .array(let codes)? = result["recovery_codes"] {
                print("Recovery codes (shown once): " + codes.compactMap(\.stringValue).joined(separator: " "))
            }
            if let code = result["current_code"]?.stringValue { print("Current code (development mode): \(code)") }
        }
    }
}
