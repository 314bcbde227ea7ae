import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users state PERSON STATE`: puts a person in an account state (``AccountState``), in the local
    /// database or, with `--server`, through the admin API's `PATCH /people/{id}`.
    struct State: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a person in an account state (what Facebook reports for them).",
            discussion: """
                STATE is one of: active, checkpointed (tokens answer \(SessionSubcode.checkpointed.wire); the dialog \
                shows a checkpoint to pass), unconfirmed (\(SessionSubcode.unconfirmed.wire); the dialog asks to \
                confirm the email), disabled (\(SessionSubcode.invalidUser.wire); no login), logged-out \
                (\(SessionSubcode.loggedOut.wire); sessions and tokens end, the next login clears it).
                """)
        @Argument(help: "The person's id or email.") var person: String
        @Argument(help: "active, checkpointed, unconfirmed, disabled or logged-out.") var state: String
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func validate() throws {
            guard AccountState(spec: state) != nil else {
                throw ValidationError(
                    "unknown state \"\(state)\"; use one of \(AccountState.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }

        func execute() async throws {
            let wanted = AccountState(spec: state)!
            if let client = try remote.client {
                let id = try await RemoteManagement.personID(client, person)
                let changed =
                    try await client.v1(
                        "PATCH", "/people/\(AdminClient.escape(id))", body: ["account_state": .string(wanted.rawValue)])
                    ?? .null
                return report(id: id, name: changed["name"]?.stringValue ?? id, state: wanted)
            }
            let user = try await withServices(data) { s in
                guard let user = try await s.accounts.findUser(person) else { throw CLIError("no user \(person)") }
                return try await s.accounts.setAccountState(of: user, to: wanted)
            }
            report(id: user.id, name: user.fullName, state: wanted)
        }

        private func report(id: String, name: String, state: AccountState) {
            if json {
                print(prettyJSON(["id": .string(id), "account_state": .string(state.rawValue)]))
            } else {
                print("\(name) is now \(state.title)")
            }
        }
    }
}
