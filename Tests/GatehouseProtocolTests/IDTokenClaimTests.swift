import Testing
import GatehouseProtocol

/// Issue 31, item 6: the id_token's claim names are spelled once, for the issuer and the SDK.
@Suite struct IDTokenClaimTests {
    @Test func registeredClaimsAreTheJWTNames() {
        #expect(IDTokenClaim.allCases.map(\.rawValue) == ["iss", "aud", "sub", "iat", "exp", "jti", "nonce"])
    }

    @Test func profileClaimsAreTheFieldTablesAndDoNotCollide() {
        let profile = UserField.claims.compactMap(\.idTokenClaim)
        #expect(
            profile == [
                "name", "given_name", "middle_name", "family_name", "picture", "email", "user_birthday", "user_gender",
                "user_link", "user_location", "user_hometown", "user_age_range", "user_friends",
            ])
        #expect(Set(profile).isDisjoint(with: IDTokenClaim.allCases.map(\.rawValue)))
        // Each profile claim is revealed by its field's permission.
        #expect(
            UserField.hometown.idTokenClaim == "user_hometown"
                && UserField.hometown.permission == Permission.userHometown)
        #expect(UserField.locale.idTokenClaim == nil)
    }
}
