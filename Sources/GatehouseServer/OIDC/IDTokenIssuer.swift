import GatehouseCore
import Foundation
import GatehouseProtocol

/// Builds and signs the id_token for a person logging in to an app.
struct IDTokenIssuer: Sendable {
    let services: GatehouseServices

    /// - Parameter granted: the permissions the id_token may reveal data for.
    func issue(app: AppRecord, user: UserRecord, granted: [String], nonce: String?) async throws -> String {
        let storage = services.storage
        let now = services.clock.now()
        let scoped = try await storage.users.scopedID(appID: app.id, userID: user.id)
        let base = services.configuration.baseURL
        func has(_ p: String) -> Bool { p == Permission.publicProfile || granted.contains(p) }

        var claims = IDTokenClaims(
            iss: base, aud: app.id, sub: scoped, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.addingTimeInterval(IDTokenLifetime.seconds).timeIntervalSince1970),
            jti: services.random.uuidString().lowercased(), nonce: nonce)
        claims.name = user.fullName
        claims.given_name = user.firstName
        claims.middle_name = user.middleName
        claims.family_name = user.lastName
        claims.picture = "\(base)/pictures/\(app.id)/\(scoped)?size=100"
        if has("email") { claims.email = user.email }
        if has("user_friends") {
            var friends: [String] = []
            for id in try await storage.friendships.friends(of: user.id) where try await storage.grants.find(appID: app.id, userID: id) != nil {
                friends.append(try await storage.users.scopedID(appID: app.id, userID: id))
            }
            claims.user_friends = friends
        }
        if has("user_birthday"), let birthday = user.birthday, birthday.count == 10 { claims.user_birthday = birthday }
        if has("user_age_range"), let range = UserFields.ageRange(birthday: user.birthday, now: now) {
            claims.user_age_range = .init(min: range["min"]?.intValue.map(Int.init), max: range["max"]?.intValue.map(Int.init))
        }
        if has("user_hometown"), let place = user.hometown { claims.user_hometown = .init(id: place.id, name: place.name) }
        if has("user_location"), let place = user.location { claims.user_location = .init(id: place.id, name: place.name) }
        if has("user_gender") { claims.user_gender = user.gender }
        if has("user_link") { claims.user_link = user.link ?? "\(base)/profile/\(app.id)/\(scoped)" }
        let signed = try await services.keyRing.sign(claims)
        services.metrics.tokenIssued("id_token")
        return signed
    }
}
