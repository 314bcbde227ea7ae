import GatehouseCore
import Foundation
import GatehouseProtocol

/// Builds and signs the id_token for a person logging in to an app.
///
/// The profile claims are the field table's: every `UserField` with an id_token claim whose permission was
/// granted is filled with the value the Graph API would show, so a claim cannot drift from its field.
struct IDTokenIssuer: Sendable {
    let services: GatehouseServices

    /// - Parameter granted: the permissions the id_token may reveal data for.
    func issue(app: AppRecord, user: UserRecord, granted: [String], nonce: String?) async throws -> String {
        let now = services.clock.now()
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        let base = services.configuration.baseURL
        func has(_ p: String) -> Bool { p == Permission.publicProfile || granted.contains(p) }

        var claims = IDTokenClaims(
            iss: base, aud: app.id, sub: scoped, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.addingTimeInterval(IDTokenLifetime.seconds).timeIntervalSince1970),
            jti: services.random.uuidString().lowercased(), nonce: nonce)
        let context = UserFieldContext(user: user, scopedID: scoped, appID: app.id, baseURL: base, now: now)
        for field in UserField.claims where has(field.permission) {
            claims[field] = try await value(of: field, context)
        }
        let signed = try await services.keyRing.sign(claims)
        services.metrics.tokenIssued("id_token")
        return signed
    }

    /// The claim's value: the Graph value of the field, except where Limited Login differs.
    private func value(of field: UserField, _ context: UserFieldContext) async throws -> JSONValue? {
        switch field {
        // Edges: Graph renders them from more than the record.
        case .picture: return .string("\(context.baseURL)/pictures/\(context.appID)/\(context.scopedID)?size=100")
        case .friends: return .array(try await friends(of: context.user, appID: context.appID))
        // The claim is a full date only; Graph also shows the partial forms (MM/DD, YYYY).
        case .birthday:
            guard let birthday = context.user.birthday, birthday.count == 10 else { return nil }
            return .string(birthday)
        default: return UserFieldValue.named(field.name)?.read(context)
        }
    }

    /// The app-scoped ids of the person's friends who also use the app.
    private func friends(of user: UserRecord, appID: String) async throws -> [JSONValue] {
        let storage = services.storage
        var friends: [JSONValue] = []
        for id in try await storage.friendships.friends(of: user.id)
        where try await storage.grants.find(appID: appID, userID: id) != nil {
            friends.append(.string(try await storage.users.scopedID(appID: appID, userID: id)))
        }
        return friends
    }
}
