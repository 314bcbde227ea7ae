import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol
import GatehouseServer

/// `gatehouse users …`: people, test users and friendships.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Create, list, change and delete people; make friends.",
        subcommands: [Create.self, List.self, Update.self, Befriend.self, State.self, TwoFactor.self, Delete.self])

    struct Create: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a person who can log in.")
        @Option var email: String
        @Option var password: String
        @Option(name: .customLong("first-name")) var firstName: String
        @Option(name: .customLong("last-name")) var lastName: String
        /// The field table's profile fields, `--middle-name Ada`, `--hometown "Porto, Portugal"` (see
        /// ``ProfileOptions``): ArgumentParser declares options statically, so these are read from what it leaves.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(ProfileOptions.help, valueName: "--field value"))
        var profileOptions: [String] = []
        @Option(help: "A PNG file for the profile picture (default: a generated avatar).") var picture: String?
        @Option(name: .customLong("test-user-of"), help: "Make this a test user of the app with this id.")
        var testUserOf: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            var pictureData: Data?
            if let picture {
                guard let data = FileManager.default.contents(atPath: picture) else {
                    throw fail("cannot read \(picture)")
                }
                pictureData = data
            }
            let profile = try ProfileOptions.read(profileOptions)
            if let client = try remote.client {
                var body: JSONObject = [
                    "email": .string(email), "password": .string(password), "first_name": .string(firstName),
                    "last_name": .string(lastName),
                ]
                for (field, value) in profile { body[field] = .string(value) }
                if let testUserOf { body["test_user_of"] = .string(testUserOf) }
                if let pictureData { body["picture_base64"] = .string(pictureData.base64EncodedString()) }
                return try await RemoteManagement.createPerson(client, body: .object(body), json: json)
            }
            let user = try await withServices(data) { s in
                var new = NewUser(
                    email: email, password: password, firstName: firstName, lastName: lastName,
                    testUserOfAppID: testUserOf, picture: pictureData)
                new.profile = profile
                return try await s.accounts.createUser(new)
            }
            if json {
                try printJSON(UserJSON(user))
            } else {
                print("Created \(user.fullName) <\(user.email)> with id \(user.id)")
            }
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "List people.")
        @Option(help: "Only this app's test users and the people who granted it.") var app: String?
        @Flag(name: .customLong("test-users"), help: "Only test users.") var testUsers = false
        @Option(help: "Only the person with this email address.") var email: String?
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document (an array).") var json = false

        func execute() async throws {
            if let client = try remote.client {
                var query: [(String, String)] = []
                if let app { query.append(("app", app)) }
                if testUsers { query.append(("test_users", "true")) }
                if let email { query.append(("email", email)) }
                return try await RemoteManagement.listPeople(client, query: query, json: json)
            }
            let users = try await withServices(data) { s in
                try await V1People(services: s).people(app: app, testUsersOnly: testUsers, email: email)
                    .map(UserJSON.init)
            }
            if json { try printJSON(users); return }
            if users.isEmpty { print("No users yet. Create one with `gatehouse users create …`.") }
            for u in users {
                print(
                    "\(u.id)  \(u.name)  <\(u.email)>\(u.test_user_of.map { "  test user of \($0)" } ?? "")"
                        + "\(u.account_state == "active" ? "" : "  [\(u.account_state)]")"
                )
            }
        }
    }

    struct Befriend: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "Make two people friends (by id or email).")
        @Argument var first: String
        @Argument var second: String
        @OptionGroup var data: DataOptions
        @OptionGroup var remote: RemoteOptions
        @Flag(help: "Print one JSON document.") var json = false

        func execute() async throws {
            if let client = try remote.client {
                return try await RemoteManagement.befriend(client, first, second, json: json)
            }
            let pair = try await withServices(data) { s -> (UserRecord, UserRecord) in
                guard let a = try await s.accounts.findUser(first) else { throw CLIError("no user \(first)") }
                guard let b = try await s.accounts.findUser(second) else { throw CLIError("no user \(second)") }
                guard a.id != b.id else { throw CLIError("a person cannot befriend themselves") }
                try await s.storage.friendships.befriend(a.id, b.id, at: s.clock.now())
                return (a, b)
            }
            struct Out: Encodable { var friends: [String]; var success: Bool }
            if json {
                try printJSON(Out(friends: [pair.0.id, pair.1.id], success: true))
            } else {
                print("\(pair.0.fullName) and \(pair.1.fullName) are now friends")
            }
        }
    }
}
