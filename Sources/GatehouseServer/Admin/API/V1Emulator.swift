import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/clock` and `/injections` under v1: move the emulator's clock and make Graph calls fail on purpose (the same
/// ``ClockControl`` and ``ErrorInjector`` as the console), and the injectable errors' catalogue (the list
/// `gatehouse inject --list` prints).
struct V1Emulator: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/clock") { _ in
                AdminAPIv1.reply(ClockControl(services: services).status().json)
            },
            V1Route(method: .post, path: "/clock/advance") { call in
                let advance = try ClockAdvance(try call.body())
                _ = try await ClockControl(services: services).advance(by: advance.seconds)
                return AdminAPIv1.reply(ClockControl(services: services).status().json)
            },
            V1Route(method: .post, path: "/clock/reset") { call in
                try call.body().finish()
                _ = try await ClockControl(services: services).reset()
                return AdminAPIv1.reply(ClockControl(services: services).status().json)
            },
            V1Route(method: .get, path: "/injections") { _ in
                AdminAPIv1.reply(["data": .array(try await services.storage.emulator.injections().map(\.json))])
            },
            V1Route(method: .post, path: "/injections") { call in
                let injection = try InjectionRequest(try call.body())
                let record = try await ErrorInjector(services: services).add(
                    kind: injection.kind, target: injection.targetID, error: injection.error, times: injection.times)
                return AdminAPIv1.reply(record.json, status: .created)
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
        ]
    }
}

/// The body of `POST /clock/advance`: `{"by":"61d"}` (a number counts as seconds), nothing else.
struct ClockAdvance: Equatable {
    var seconds: TimeInterval

    /// - Throws: a validation ``Problem`` naming `by` when it is not a duration.
    init(_ body: RequestBody) throws {
        try body.finish(known: ["by"])
        let by = body.object["by"]
        guard let seconds = DurationParser.seconds(by?.stringValue ?? by?.doubleValue.map { String($0) } ?? "") else {
            throw Problem.validation("by", "\"by\" must be a duration such as 61d, 12h, 90m or 3600")
        }
        self.seconds = seconds
    }
}

/// The body of `POST /injections`: `{"target":"user|app|token","id":…,"error":"190/460","times":2}`. The error's
/// name and the count are checked by ``ErrorInjector`` (its refusals name `error` and `times`); a `times` that is not
/// a whole number reads as absent (until cleared).
struct InjectionRequest: Equatable {
    var kind: InjectionTargetKind
    var targetID: String
    var error: String
    var times: Int?

    /// - Throws: a validation ``Problem`` naming `target` or `id` when it is missing or wrong.
    init(_ body: RequestBody) throws {
        try body.finish(known: ["target", "id", "error", "times"])
        let object = body.object
        guard let kind = object["target"]?.stringValue.flatMap(InjectionTargetKind.init(rawValue:)) else {
            throw Problem.validation("target", "\"target\" must be user, app or token")
        }
        guard let id = object["id"]?.stringValue, !id.isEmpty else {
            throw Problem.validation("id", "\"id\" names the user, app or token")
        }
        self.kind = kind
        targetID = id
        times = object["times"]?.intValue.map { Int($0) }
        error = object["error"]?.stringValue ?? ""
    }
}

extension ClockControl.Status {
    /// `{"now":…,"now_iso":…,"offset_seconds":…,"controllable":…}`, as every `/clock` route answers.
    var json: JSONValue {
        [
            "now": .int(Int64(now.timeIntervalSince1970)),
            "now_iso": .string(ISO8601DateFormatter().string(from: now)),
            "offset_seconds": .int(Int64(offset)),
            "controllable": .bool(controllable),
        ]
    }
}

extension InjectedErrorRecord {
    /// One injection as `/injections` lists it; `error` is the catalogue's name when the code has one.
    var json: JSONValue {
        [
            "id": .string(id), "target": .string(targetKind.rawValue), "target_id": .string(targetID),
            "error": .string(InjectableError(code: code, subcode: subcode)?.rawValue ?? "\(code)"),
            "code": .int(Int64(code)), "error_subcode": subcode.map { .int(Int64($0)) } ?? .null,
            "remaining": remaining.map { .int(Int64($0)) } ?? .null,
            "created_time": .int(Int64(createdAt.timeIntervalSince1970)),
        ]
    }
}
