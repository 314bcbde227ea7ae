import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import NIOFoundationEssentialsCompat

/// The emulator's JSON admin API, used by `gatehouse clock|inject|export|import` and by test suites.
///
///     GET    /admin/api/clock                 {"now":…,"now_iso":…,"offset_seconds":…,"controllable":…}
///     POST   /admin/api/clock/advance         {"by":"61d"}
///     POST   /admin/api/clock/reset
///     GET    /admin/api/injections            {"data":[…]}
///     POST   /admin/api/injections            {"target":"user|app|token","id":…,"error":"190/460","times":2}
///     DELETE /admin/api/injections/{id}
///     DELETE /admin/api/injections            clears all
///     GET    /admin/api/export                the whole state (see `EmulatorState`); signing keys' private
///                                             halves only with `?include_private_keys=true`
///     POST   /admin/api/import                replaces the whole state
///
/// Every POST must be `application/json`, even one without a body (`clock/reset`): a browser cannot send that
/// cross-site without a CORS preflight, which this server never grants, so the API needs no CSRF token.
struct AdminAPI: Sendable {
    let services: GatehouseServices
    let access: ConsoleAccess

    func register(on router: Router<GatehouseRequestContext>) {
        let api = router.group("admin/api")
        api.get("clock", use: clock)
        api.post("clock/advance", use: advanceClock)
        api.post("clock/reset", use: resetClock)
        api.get("injections", use: listInjections)
        api.post("injections", use: inject)
        api.delete("injections/:id", use: deleteInjection)
        api.delete("injections", use: clearInjections)
        api.get("export", use: export)
        api.post("import", use: importState)
    }

    /// `GET /admin/api/clock`.
    @Sendable func clock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request) { _ in clockJSON() }
    }

    /// `POST /admin/api/clock/advance` with ``ClockAdvanceBody``.
    @Sendable func advanceClock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request, body: true) { body in
            _ = try await ClockControl(services: services).advance(by: try ClockAdvanceBody(body).seconds)
            return clockJSON()
        }
    }

    /// `POST /admin/api/clock/reset`.
    @Sendable func resetClock(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request) { _ in
            _ = try await ClockControl(services: services).reset()
            return clockJSON()
        }
    }

    /// `GET /admin/api/injections`.
    @Sendable func listInjections(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request) { _ in
            .object(["data": .array(try await services.storage.emulator.injections().map(Self.json))])
        }
    }

    /// `POST /admin/api/injections` with ``InjectionBody``: 201 and the injection.
    @Sendable func inject(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request, body: true, created: true) { body in
            let injection = try InjectionBody(body)
            let record = try await ErrorInjector(services: services).add(
                kind: injection.kind, target: injection.targetID, error: injection.error, times: injection.times)
            return Self.json(record)
        }
    }

    /// `DELETE /admin/api/injections/:id`: 404 for an unknown id.
    @Sendable func deleteInjection(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request) { _ in
            let id = context.parameters.get("id") ?? ""
            guard try await services.storage.emulator.deleteInjection(id: id) else {
                throw AdminFailure(404, "no injection \(id)")
            }
            return ["success": true]
        }
    }

    /// `DELETE /admin/api/injections`: clears all.
    @Sendable func clearInjections(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await guarded(request) { _ in
            try await services.storage.emulator.deleteAllInjections()
            return ["success": true]
        }
    }

    /// `GET /admin/api/export`: the whole state as a download; private key halves only with `?include_private_keys=true`.
    @Sendable func export(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard await access.allows(request) else { return Self.reply(Self.denied, status: .forbidden) }
        let actor = (try? await AdminAuthorization(services: services).actor(request)) ?? .development
        guard
            await SecretReads(services: services).allowed(
                actor, route: AuditMiddleware.route(context, path: request.uri.path), target: nil)
        else {
            return Self.reply(Self.error(403, SecretReads.refusal), status: .forbidden)
        }
        let withKeys = request.uri.queryParameters["include_private_keys"] == "true"
        let data = try EmulatorState.encoder.encode(
            try await StateTransfer(services: services).export(includePrivateKeys: withKeys))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = "no-store"
        headers[.contentDisposition] = "attachment; filename=\"gatehouse-state.json\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// `POST /admin/api/import`: replaces the whole state with an export (JSON, up to 256 MB).
    @Sendable func importState(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard await access.allows(request) else { return Self.reply(Self.denied, status: .forbidden) }
        guard StateReplacement.isAllowed(services.configuration) else {
            return Self.reply(Self.error(403, StateReplacement.refusal), status: .forbidden)
        }
        guard Self.isJSON(request) else {
            return Self.reply(Self.error(415, "send the export as application/json"), status: .unsupportedMediaType)
        }
        var request = request
        guard let buffer = try? await request.collectBody(upTo: 256 << 20) else {
            return Self.reply(Self.error(413, "the file is larger than 256 MB"), status: .contentTooLarge)
        }
        do {
            let state = try StateTransfer.decode(Data(buffer: buffer))
            try await StateTransfer(services: services).replace(with: state)
            return Self.reply(
                [
                    "success": true, "apps": .int(Int64(state.apps.count)), "users": .int(Int64(state.users.count)),
                    "tokens": .int(Int64(state.tokens.count)),
                ], status: .ok)
        } catch let error as StateTransfer.ImportError {
            return Self.reply(Self.error(400, error.description), status: .badRequest)
        } catch let error as StorageError {
            return Self.reply(
                Self.error(
                    409, "the import could not be stored (\(error)); the state may be partly replaced, import again"),
                status: .conflict)
        }
    }

    /// The body of `POST clock/advance`: `{"by":"61d"}` (a number counts as seconds).
    struct ClockAdvanceBody: Equatable {
        var seconds: TimeInterval

        /// - Throws: ``AdminFailure`` (400) when `by` is not a duration.
        init(_ body: JSONValue?) throws {
            let by = body?["by"]?.stringValue ?? body?["by"]?.doubleValue.map { String($0) } ?? ""
            guard let seconds = DurationParser.seconds(by) else {
                throw AdminFailure(400, "\"by\" must be a duration such as 61d, 12h, 90m or 3600")
            }
            self.seconds = seconds
        }
    }

    /// The body of `POST injections`: `{"target":"user|app|token","id":…,"error":"190/460","times":2}`. The error
    /// name is checked by ``ErrorInjector``.
    struct InjectionBody: Equatable {
        var kind: InjectionTargetKind
        var targetID: String
        var error: String
        var times: Int?

        /// - Throws: ``AdminFailure`` (400) naming the first field that is wrong.
        init(_ body: JSONValue?) throws {
            guard let kind = body?["target"]?.stringValue.flatMap(InjectionTargetKind.init(rawValue:)) else {
                throw AdminFailure(400, "\"target\" must be user, app or token")
            }
            guard let id = body?["id"]?.stringValue, !id.isEmpty else {
                throw AdminFailure(400, "\"id\" names the user, app or token")
            }
            self.kind = kind
            targetID = id
            times = body?["times"]?.intValue.map { Int($0) }
            error = body?["error"]?.stringValue ?? ""
        }
    }

    // MARK: Plumbing

    struct AdminFailure: Error {
        var status: Int
        var message: String
        init(_ status: Int, _ message: String) { self.status = status; self.message = message }
    }

    private func guarded(
        _ request: Request, body: Bool = false, created: Bool = false, _ work: (JSONValue?) async throws -> JSONValue
    ) async throws -> Response {
        guard await access.allows(request) else { return Self.reply(Self.denied, status: .forbidden) }
        var parsed: JSONValue?
        // Checked for every POST, body or not: a cross-site form could otherwise trigger a bodiless one.
        if request.method == .post, !Self.isJSON(request) {
            return Self.reply(
                Self.error(415, "send a JSON body with Content-Type: application/json"), status: .unsupportedMediaType)
        }
        if body {
            guard Self.isJSON(request) else {
                return Self.reply(
                    Self.error(415, "send a JSON body with Content-Type: application/json"),
                    status: .unsupportedMediaType)
            }
            var request = request
            guard let buffer = try? await request.collectBody(upTo: 64 * 1024),
                let value = try? JSONValue.parse(Data(buffer: buffer))
            else {
                return Self.reply(Self.error(400, "the body is not valid JSON"), status: .badRequest)
            }
            parsed = value
        }
        do {
            return Self.reply(try await work(parsed), status: created ? .created : .ok)
        } catch let failure as AdminFailure {
            return Self.reply(Self.error(failure.status, failure.message), status: .init(code: failure.status))
        } catch let error as ErrorInjector.InjectionError {
            return Self.reply(
                Self.error(error == .disabled ? 403 : 400, error.description),
                status: error == .disabled ? .forbidden : .badRequest)
        } catch let error as ClockControl.ClockError {
            return Self.reply(
                Self.error(error == .notControllable ? 403 : 400, error.description),
                status: error == .notControllable ? .forbidden : .badRequest)
        }
    }

    /// The clock's state as `GET clock` answers it (shared with `/admin/api/v1/clock`).
    func clockJSON() -> JSONValue {
        let status = ClockControl(services: services).status()
        return [
            "now": .int(Int64(status.now.timeIntervalSince1970)),
            "now_iso": .string(ISO8601DateFormatter().string(from: status.now)),
            "offset_seconds": .int(Int64(status.offset)),
            "controllable": .bool(status.controllable),
        ]
    }

    static func json(_ record: InjectedErrorRecord) -> JSONValue {
        [
            "id": .string(record.id), "target": .string(record.targetKind.rawValue),
            "target_id": .string(record.targetID),
            "error": .string(InjectableError(code: record.code, subcode: record.subcode)?.rawValue ?? "\(record.code)"),
            "code": .int(Int64(record.code)), "error_subcode": record.subcode.map { .int(Int64($0)) } ?? .null,
            "remaining": record.remaining.map { .int(Int64($0)) } ?? .null,
            "created_time": .int(Int64(record.createdAt.timeIntervalSince1970)),
        ]
    }

    static let denied = error(403, "the admin API needs an admin login in production mode")

    static func error(_ code: Int, _ message: String) -> JSONValue {
        ["error": ["message": .string(message), "type": "GatehouseAdminException", "code": .int(Int64(code))]]
    }

    static func isJSON(_ request: Request) -> Bool {
        request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false
    }

    static func reply(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.serialized())))
    }
}

/// Who may use the console and the admin API: everyone in development mode; in production mode,
/// only a signed-in admin.
struct ConsoleAccess: Sendable {
    let services: GatehouseServices

    /// Development mode: everyone. Production mode: a live admin session or admin token, and a writable one for
    /// anything but a read (``AdminGate`` already refused anyone else, so this is a second check behind it).
    func allows(_ request: Request) async -> Bool {
        if services.configuration.isDevelopment { return true }
        return await AdminAuthorization(services: services).decide(request).isAllowed
    }
}
