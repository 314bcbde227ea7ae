import Foundation
import GatehouseProtocol
@testable import GatehouseCore
@testable import GatehouseServer
import Testing

/// Issue 31, item 6: the issuer fills the profile claims from the field table, each only when its field's
/// permission was granted, with the value the Graph API shows (a Limited Login birthday is a full date only).
@Suite struct IDTokenIssuerTests {
    static func payload(_ token: String) throws -> JSONValue {
        let part = String(token.split(separator: ".")[1])
        return try JSONValue.parse(try #require(Base64URL.decode(part)))
    }

    @Test func theGrantedFieldsOfTheTableAreTheClaims() async throws {
        let server = try await TestServer.make()
        try await server.run { _ in
            var user = server.alice
            user.hometown = Place(id: "7", name: "Porto")
            user.profileText["locale"] = "en_US"
            let issuer = IDTokenIssuer(services: server.services)
            let token = try await issuer.issue(
                app: server.app, user: user, granted: ["user_hometown", "user_age_range", "user_friends"], nonce: "n")
            let claims = try Self.payload(token)
            let scoped = try await server.scopedID(server.alice)
            // jwt-kit's encoder does not keep member order, so the claims compare as a set.
            #expect(
                Set(claims.objectValue?.keys ?? []) == [
                    "iss", "aud", "sub", "iat", "exp", "jti", "nonce", "name", "given_name", "family_name", "picture",
                    "user_hometown", "user_age_range", "user_friends",
                ])
            #expect(
                claims["name"] == "Alice Anders" && claims["given_name"] == "Alice" && claims["family_name"] == "Anders"
            )
            #expect(claims["picture"] == .string("http://gatehouse.test/pictures/\(server.app.id)/\(scoped)?size=100"))
            #expect(claims["user_hometown"]?["id"] == "7" && claims["user_hometown"]?["name"] == "Porto")
            #expect(claims["user_age_range"] == ["min": 21])
            // Bob is Alice's friend but has not used the app.
            #expect(claims["user_friends"] == [])
        }
    }

    @Test func aPartialBirthdayIsNoClaimAndTheLinkDefaultsToTheProfilePage() async throws {
        let server = try await TestServer.make()
        try await server.run { _ in
            var user = server.alice
            user.birthday = "04/12"
            let token = try await IDTokenIssuer(services: server.services).issue(
                app: server.app, user: user,
                granted: ["email", "user_birthday", "user_link", "user_gender", "user_location"], nonce: nil)
            let claims = try Self.payload(token)
            let scoped = try await server.scopedID(server.alice)
            #expect(claims["nonce"] == nil && claims["user_birthday"] == nil)
            #expect(claims["email"] == "alice@example.com" && claims["user_gender"] == "female")
            #expect(claims["user_link"] == .string("http://gatehouse.test/profile/\(server.app.id)/\(scoped)"))
            #expect(claims["user_location"]?["id"] == "110" && claims["user_location"]?["name"] == "Lisbon, Portugal")
        }
    }
}
