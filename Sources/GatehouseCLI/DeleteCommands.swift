import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

/// `gatehouse users delete` and `gatehouse apps delete`: the admin API's `DELETE /people/{id}` and
/// `DELETE /apps/{id}`, on the local database or through `--server`. Both ask for `--yes`, since nothing brings
/// back what they remove.
extension UsersCommand {
    struct Delete: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a person, as their own \"Delete my account\" does.",
            discussion: """
                Every app the person used gets its data-deletion and deauthorize callbacks; their grants, tokens, \
                sessions and second factor go with them, and their old tokens answer \(SessionSubcode.appNotAuthorized.wire).
                """)
        @Argument(help: "The person's id or email.") var person: String
        @Flag(help: "Delete without asking again (required).") var yes = false
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            guard yes else { throw fail("deleting \(person) cannot be undone: add --yes to delete") }
            var id = person
            _ = try await ManagementOperation.run(data, remote, method: "DELETE", route: "/people/{id}", status: 204) {
                client in
                id = try await RemoteManagement.personID(client, person)
                return try await client.v1("DELETE", "/people/" + AdminClient.escape(id)) ?? .null
            } local: { s in
                guard let user = try await s.accounts.findUser(person) else { throw CLIError("no user \(person)") }
                id = user.id
                try await AccountDeletion(services: s).delete(user)
                return ["id": .string(user.id)]
            }
            print(json ? prettyJSON(["id": .string(id), "deleted": true]) : "deleted \(person) (id \(id))")
        }
    }
}

extension AppsCommand {
    struct Delete: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an app with its grants, tokens, codes, roles and test users.")
        @Argument(help: "The app's id.") var id: String
        @Flag(help: "Delete without asking again (required).") var yes = false
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            guard yes else { throw fail("deleting app \(id) cannot be undone: add --yes to delete") }
            _ = try await ManagementOperation.run(
                data, remote, method: "DELETE", route: "/apps/{id}", status: 204, target: id
            ) { client in
                try await client.v1("DELETE", "/apps/" + AdminClient.escape(id)) ?? .null
            } local: { s in
                guard try await AppDeletion(services: s).delete(appID: id) else { throw CLIError("no app \(id)") }
                return .null
            }
            print(json ? prettyJSON(["id": .string(id), "deleted": true]) : "deleted app \(id)")
        }
    }
}
