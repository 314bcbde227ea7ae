import GatehouseCore
import Foundation
import GatehouseProtocol

/// `GET /debug_token?input_token=…&access_token=<app token>` with exactly Facebook's shape.
///
/// Like Facebook, a caller may only inspect tokens of its own app: the app's token, or a user token of that same
/// app. A token of any other app is refused with error 100 (`The App_id in the input_token did not match the
/// Viewing App`), so one app cannot learn another's users, scopes or expiries.
struct DebugTokenEndpoint: Sendable {
    let services: GatehouseServices

    func handle(_ call: GraphCall) async throws -> GraphReply {
        guard let callerToken = call.accessToken else { throw GraphFailure(.tokenRequired) }
        let caller: Caller
        switch try await services.tokens.resolve(callerToken) {
        case .failure(let error): throw GraphFailure(error)
        case .success(.client): throw GraphFailure(.invalidAppToken)
        case .success(let c): caller = c
        }
        JournalNote.current?.identify(appID: caller.app.id, appName: caller.app.name)
        guard let input = call.param("input_token") else {
            throw GraphFailure(.invalidParameter("The parameter input_token is required"))
        }
        // The journal files the call under the token it asks about, so the token's activity lists it.
        JournalNote.current?.presented(token: input)
        return .json(DebugTokenResponse(data: try await inspect(input, viewer: caller.app)).json)
    }

    func inspect(_ input: String, viewer: AppRecord) async throws -> DebugTokenData {
        let storage = services.storage
        let resolution = try await services.tokens.resolve(input)
        func sameApp(_ appID: String) throws {
            guard appID == viewer.id else { throw GraphFailure(.inputTokenOfAnotherApp) }
        }
        switch resolution {
        case .success(.app(let app)), .success(.client(let app)):
            try sameApp(app.id)
            return DebugTokenData(appID: app.id, type: "APP", application: app.name, isValid: true, scopes: [])
        case .success(.user(let user)):
            try sameApp(user.app.id)
            JournalNote.current?.identify(personID: user.scopedID, personName: user.user.fullName)
            return userData(user.token, app: user.app, scopedID: user.scopedID, grant: user.grant, error: nil)
        case .failure(let error):
            // A token we know (revoked, expired, app removed) still describes itself; garbage does not.
            guard !input.utf8.contains(UInt8(ascii: "|")),
                let record = try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(input)),
                let app = try await storage.apps.find(id: record.appID), let userID = record.userID
            else {
                return DebugTokenData(
                    isValid: false, scopes: [],
                    error: DebugTokenError(code: error.code, message: error.message, subcode: error.errorSubcode))
            }
            try sameApp(app.id)
            let scoped = try await storage.users.scopedID(appID: app.id, userID: userID)
            let grant = try await storage.grants.find(appID: app.id, userID: userID)
            return userData(
                record, app: app, scopedID: scoped, grant: grant,
                error: DebugTokenError(code: error.code, message: error.message, subcode: error.errorSubcode))
        }
    }

    private func userData(
        _ token: TokenRecord, app: AppRecord, scopedID: String, grant: GrantRecord?, error: DebugTokenError?
    ) -> DebugTokenData {
        let scopes = error == nil ? (grant?.granted ?? []) : []
        var metadata = ["sso": token.origin ?? "dialog"]
        if let authType = token.authType { metadata["auth_type"] = authType }
        // Gatehouse reports the audience chosen on the publish step here (Facebook showed it nowhere in the API).
        if error == nil, let grant, let audience = grant.defaultAudience,
            grant.granted.contains(where: Permission.isPublish)
        {
            metadata["default_audience"] = audience.wireName
        }
        return DebugTokenData(
            appID: app.id, type: "USER", application: app.name,
            dataAccessExpiresAt: grant.map { Int($0.dataAccessExpiresAt.timeIntervalSince1970) },
            expiresAt: token.expiresAt.map { Int($0.timeIntervalSince1970) } ?? 0, isValid: error == nil,
            issuedAt: Int(token.issuedAt.timeIntervalSince1970), metadata: metadata, scopes: scopes,
            granularScopes: scopes.filter { $0 != Permission.publicProfile }.map {
                GranularScope(scope: $0, targetIDs: nil)
            },
            userID: scopedID, error: error)
    }
}
