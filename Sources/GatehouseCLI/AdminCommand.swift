import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseServer

/// `gatehouse admin …`: the console's administrator accounts (needed in production mode).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage console administrator accounts and admin API tokens.",
        subcommands: [Create.self, List.self, AdminTokenCommand.self])

    struct Create: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an administrator. The password is read from standard input, never from the command line.")
        @OptionGroup var data: DataOptions
        @Option(help: "The administrator's email (their login name).") var email: String
        @Flag(
            name: .customLong("password-stdin"),
            help: "Read the password from the first line of standard input (required).")
        var passwordStdin = false

        func execute() async throws {
            guard passwordStdin else {
                throw fail(
                    "pass the password on standard input with --password-stdin (e.g. `printf %s \"$PW\" | "
                        + "gatehouse admin create --email … --password-stdin`)"
                )
            }
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw fail("no password on standard input")
            }
            let admin = try await withServices(data) { s in
                try await AdminAccounts(services: s).create(email: email, password: line)
            }
            print("Created admin \(admin.email) (\(admin.id)). Log in at /console/login.")
        }
    }

    struct List: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(abstract: "List administrators.")
        @OptionGroup var data: DataOptions
        @Flag(help: "Print one JSON document (an array).") var json = false

        struct AdminJSON: Encodable { var id, email: String; var created_at: Date }

        func execute() async throws {
            let admins = try await withServices(data) { s in try await s.storage.admins.list() }
            if json {
                try printJSON(admins.map { AdminJSON(id: $0.id, email: $0.email, created_at: $0.createdAt) }); return
            }
            for admin in admins { print("\(admin.email)  \(admin.id)  created \(admin.createdAt)") }
        }
    }
}
