import ArgumentParser
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users update PERSON …`: the admin API's `PATCH /people/{id}`, on the local database or through
    /// `--server`. A new password goes through `AccountService.changePassword` either way: the person's tokens then
    /// answer 190/460 and their browser sessions end.
    struct Update: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a person's email, password or profile fields.",
            discussion: """
                A new password signs the person out everywhere: their tokens answer \(SessionSubcode.passwordChanged.wire) and their \
                sessions end. \
                An empty value clears a profile field (--hometown "").
                """)
        @Argument(help: "The person's id or email.") var person: String
        @Option(help: "A new email address.") var email: String?
        @Option(name: .customLong("first-name")) var firstName: String?
        @Option(name: .customLong("last-name")) var lastName: String?
        @Option(help: "A new password (at least 6 characters).") var password: String?
        /// The field table's profile fields, as `users create` takes them.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(ProfileOptions.help, valueName: "--field value"))
        var profileOptions: [String] = []
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print the API's person object.") var json = false

        func execute() async throws {
            var body: JSONObject = [:]
            if let email { body["email"] = .string(email) }
            if let password { body["password"] = .string(password) }
            if let firstName { body["first_name"] = .string(firstName) }
            if let lastName { body["last_name"] = .string(lastName) }
            for (field, value) in try ProfileOptions.read(profileOptions) {
                body[field] = value.isEmpty ? .null : .string(value)
            }
            guard !body.isEmpty else {
                throw fail("nothing to change: give --email, --password, a name or a profile field")
            }
            var id = person
            let updated = try await ManagementOperation.run(
                data, remote, method: "PATCH", route: "/people/{id}", status: 200
            ) { client in
                id = try await RemoteManagement.personID(client, person)
                return try await client.v1("PATCH", "/people/" + AdminClient.escape(id), body: .object(body)) ?? .null
            } local: { s in
                id = try await ManagementOperation.localPersonID(s, person)
                return try await V1People(services: s).update(id: id, body)
            }
            if json { print(prettyJSON(updated)); return }
            print(
                "Updated \(updated["name"]?.stringValue ?? id) <\(updated["email"]?.stringValue ?? "")>"
                    + (password == nil
                        ? "" : "; signed out everywhere (tokens answer \(SessionSubcode.passwordChanged.wire))"))
        }
    }
}
