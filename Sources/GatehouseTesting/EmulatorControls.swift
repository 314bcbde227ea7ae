import Foundation
import GatehouseCore
import GatehouseProtocol

extension GatehouseEmulator {
    /// Logs `user` in to `app` as the login dialog would after they consented, without a browser: sets the grant
    /// (`PUT /apps/{app}/grants/{person}`) and mints a 60-day token (`POST /tokens`), as a code exchange does.
    ///
    /// - Parameters:
    ///   - app: nil: the demo app, ``app``.
    ///   - permissions: what they grant; `public_profile` is always granted. Test users may grant permissions
    ///     the app has not had approved, as on Facebook.
    ///   - declined: what they decline (reported by `/me/permissions` as `declined`).
    /// - Throws: ``EmulatorError/unknownUser(_:)`` when the server has no such person; ``GatehouseAdminError``
    ///   when it refuses the call.
    public func logIn(_ user: TestUser, to app: TestApp? = nil, permissions: [String] = [], declined: [String] = [])
        async throws -> TestLogin
    {
        let app = app ?? self.app
        var granted = [Permission.publicProfile]
        for permission in permissions where !granted.contains(permission) && !declined.contains(permission) {
            granted.append(permission)
        }
        let grant: TestGrant
        do {
            grant = try await self.grant(
                granted, declined: declined.filter { $0 != Permission.publicProfile }, to: app, by: user)
        } catch let error as GatehouseAdminError where error.status == 404 {
            throw EmulatorError.unknownUser(user.id)
        }
        let token = try await mintToken(for: user, app: app)
        return TestLogin(
            accessToken: token.accessToken, userID: try await appScopedID(of: user, in: app),
            expiresAt: token.expiresAt,
            grantedPermissions: grant.granted, declinedPermissions: grant.declined)
    }

    /// Makes the next `times` Graph calls with any of `user`'s tokens fail with a Graph error, given as
    /// `code` or `code/subcode` (`"190/460"`: session invalidated by a password change) or by name
    /// (`gatehouse inject --list` lists them). nil `times`: until cleared.
    public func injectError(_ error: String, for user: TestUser, times: Int? = 1) async throws {
        try await inject(error, target: "user", id: user.id, times: times)
    }

    /// Makes the next `times` Graph calls of `app` (nil: the demo app), with any token, fail with `error` (see
    /// ``injectError(_:for:times:)``).
    public func injectErrorForApp(_ error: String, app: TestApp? = nil, times: Int? = 1) async throws {
        try await inject(error, target: "app", id: (app ?? self.app).id, times: times)
    }

    private func inject(_ error: String, target: String, id: String, times: Int?) async throws {
        var body: JSONObject = ["target": .string(target), "id": .string(id), "error": .string(error)]
        if let times { body["times"] = .int(Int64(times)) }
        try await admin.send("POST", "/injections", body: .object(body))
    }

    /// Moves the emulator's clock forward: tokens, codes and the 90-day data access expire as they would.
    public func advanceClock(by interval: TimeInterval) async throws {
        let reply = try await admin.send("POST", "/clock/advance", body: ["by": .double(interval)])
        if let now = Self.clockTime(reply) { lastKnownNow.value = now }
    }

    /// The emulator's "now", as the server reports it (`GET /clock`).
    public func serverTime() async throws -> Date {
        guard let now = Self.clockTime(try await admin.send("GET", "/clock")) else {
            throw EmulatorError.unexpectedAnswer("GET /clock: no now")
        }
        lastKnownNow.value = now
        return now
    }

    /// The emulator's "now". In this process, its clock; on a server reached by URL, the time it reported at the
    /// last ``advanceClock(by:)`` or ``serverTime()`` (or when connected); ask ``serverTime()`` for the live value.
    public var now: Date { local?.clock.now() ?? lastKnownNow.value }

    /// `now` of a clock answer: seconds since 1970, or an RFC 3339 time.
    static func clockTime(_ reply: JSONValue?) -> Date? {
        if let seconds = reply?["now"]?.doubleValue { return Date(timeIntervalSince1970: seconds) }
        return reply?["now"]?.date ?? reply?["now_iso"]?.date
    }

    /// The id `app` sees for `user` (`/me`'s `id`), read from the `sub` of a Limited Login id_token rather than
    /// from a Graph call, which would use up an injected error.
    func appScopedID(of user: TestUser, in app: TestApp) async throws -> String {
        let token = try await mintIDToken(for: user, app: app)
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Data(base64URL: String(parts[1])),
            let sub = (try? JSONValue.parse(payload))?["sub"]?.stringValue
        else {
            throw EmulatorError.unexpectedAnswer("POST /id-tokens: no sub in the id_token")
        }
        return sub
    }
}

extension Data {
    /// Decodes base64url without padding, as a JWT writes its parts.
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
