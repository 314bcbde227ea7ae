import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/clock`, `/injections` and `/journal` under v1: the older `/admin/api` routes' behaviour and answers (the same
/// ``ClockControl``, ``ErrorInjector`` and ``JournalAPI`` code), with problem documents for errors, and the
/// injectable errors' catalogue (the list `gatehouse inject --list` prints).
struct V1Emulator: Sendable {
    let services: GatehouseServices

    private var legacy: AdminAPI { AdminAPI(services: services, access: ConsoleAccess(services: services)) }
    private var journal: JournalAPI { JournalAPI(services: services, access: ConsoleAccess(services: services)) }

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/clock") { _ in AdminAPIv1.reply(legacy.clockJSON()) },
            V1Route(method: .post, path: "/clock/advance") { call in
                let body = try call.body()
                let seconds = try Self.legacy(field: "by") {
                    try AdminAPI.ClockAdvanceBody(.object(body.object)).seconds
                }
                _ = try await ClockControl(services: services).advance(by: seconds)
                return AdminAPIv1.reply(legacy.clockJSON())
            },
            V1Route(method: .post, path: "/clock/reset") { call in
                _ = try call.body()
                _ = try await ClockControl(services: services).reset()
                return AdminAPIv1.reply(legacy.clockJSON())
            },
            V1Route(method: .get, path: "/injections") { _ in
                AdminAPIv1.reply(["data": .array(try await services.storage.emulator.injections().map(AdminAPI.json))])
            },
            V1Route(method: .post, path: "/injections") { call in
                let body = try call.body()
                let injection = try Self.legacy(field: nil) { try AdminAPI.InjectionBody(.object(body.object)) }
                let record = try await ErrorInjector(services: services).add(
                    kind: injection.kind, target: injection.targetID, error: injection.error, times: injection.times)
                return AdminAPIv1.reply(AdminAPI.json(record), status: .created)
            },
            V1Route(method: .delete, path: "/injections") { _ in
                try await services.storage.emulator.deleteAllInjections()
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .get, path: "/injections/catalogue") { _ in
                AdminAPIv1.reply([
                    "data": .array(
                        InjectableError.allCases.map { error in
                            [
                                "error": .string(error.rawValue), "name": .string(error.name),
                                "title": .string(error.title),
                            ]
                        })
                ])
            },
            V1Route(method: .delete, path: "/injections/{id}") { call in
                guard try await services.storage.emulator.deleteInjection(id: call.parameter("id")) else {
                    throw Problem.notFound("there is no injection \(GraphError.echo(call.parameter("id")))")
                }
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .get, path: "/journal") { call in
                guard let listing = try await journal.listing(call.request) else {
                    throw Problem.notFound("the request journal table is off on this server (--journal-table)")
                }
                return AdminAPIv1.reply(listing)
            },
            V1Route(method: .get, path: "/journal/{seq}") { call in
                guard let entry = Int(call.parameter("seq")).flatMap(journal.entry(sequence:)) else {
                    throw Problem.notFound(
                        "no journal entry with that number on this node (it may have been overwritten)")
                }
                return AdminAPIv1.reply(entry)
            },
        ]
    }

    /// Runs one of the older API's body readers, turning its refusal into a validation problem. The injection
    /// reader names its field in the message (`"target" must be …`), so the field is taken from there.
    static func legacy<T>(field: String?, _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let failure as AdminAPI.AdminFailure {
            let parts = failure.message.split(separator: "\"", omittingEmptySubsequences: false)
            let named = parts.count > 2 ? String(parts[1]) : nil
            throw Problem.validation(field ?? named ?? "body", failure.message)
        }
    }
}
