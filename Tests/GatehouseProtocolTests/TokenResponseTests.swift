import Foundation
import Testing
import GatehouseProtocol

@Suite struct TokenResponseTests {
    @Test func accessTokenResponse() throws {
        let plain = AccessTokenResponse(accessToken: "EAAB", expiresIn: 5_183_944)
        #expect(
            try JSONValue(encoding: plain).serialized()
                == #"{"access_token":"EAAB","token_type":"bearer","expires_in":5183944}"#)
        let oidc = AccessTokenResponse(accessToken: "EAAB", expiresIn: 60, idToken: "h.p.s")
        #expect(
            try JSONValue(encoding: oidc).serialized()
                == #"{"access_token":"EAAB","token_type":"bearer","expires_in":60,"id_token":"h.p.s"}"#)
        let app = AccessTokenResponse(accessToken: "123|abc")
        #expect(try JSONValue(encoding: app).serialized() == #"{"access_token":"123|abc","token_type":"bearer"}"#)
        let decoded = try JSONDecoder().decode(
            AccessTokenResponse.self, from: Data(#"{"access_token":"t","expires_in":5}"#.utf8))
        #expect(decoded == AccessTokenResponse(accessToken: "t", tokenType: "bearer", expiresIn: 5))
    }

    @Test func extendSSOTokenResponse() throws {
        let minimal = ExtendSSOTokenResponse(
            accessToken: "EAAB", expiresAt: 1_700_000_000, dataAccessExpirationTime: 1_707_776_000)
        #expect(
            try JSONValue(encoding: minimal).serialized()
                == #"{"access_token":"EAAB","expires_at":1700000000,"data_access_expiration_time":1707776000}"#)
        let full = ExtendSSOTokenResponse(
            accessToken: "EAAB", expiresAt: 1, dataAccessExpirationTime: 2, expiresIn: 3, graphDomain: "facebook")
        #expect(
            try JSONValue(encoding: full).serialized()
                == #"{"access_token":"EAAB","expires_at":1,"data_access_expiration_time":2,"expires_in":3,"graph_domain":"facebook"}"#
        )
    }

    @Test func accessTokenInfoResponse() throws {
        let info = AccessTokenInfoResponse(accessToken: "EAAB", expiresIn: 100, authNonce: "n0nce")
        #expect(
            try JSONValue(encoding: info).serialized()
                == #"{"access_token":"EAAB","token_type":"bearer","expires_in":100,"auth_nonce":"n0nce"}"#)
    }

    @Test func permissionsAndSuccess() throws {
        let permissions = PermissionsResponse(data: [
            PermissionStatus(permission: "public_profile", status: .granted),
            PermissionStatus(permission: "email", status: .declined),
            PermissionStatus(permission: "user_friends", status: .expired),
        ])
        #expect(
            try JSONValue(encoding: permissions).serialized()
                == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","#
                + #""status":"declined"},{"permission":"user_friends","status":"expired"}]}"#
        )
        #expect(try JSONValue(encoding: SuccessResponse()).serialized() == #"{"success":true}"#)
        let decoded = try JSONDecoder().decode(
            PermissionsResponse.self, from: Data(#"{"data":[{"permission":"email","status":"granted"}]}"#.utf8))
        #expect(decoded.data == [PermissionStatus(permission: "email", status: .granted)])
    }
}

@Suite struct DebugTokenTests {
    @Test func validUserTokenMatchesDocumentedSample() throws {
        let response = DebugTokenResponse(
            data: DebugTokenData(
                appID: "138483919580948", type: "USER", application: "Social Cafe", dataAccessExpiresAt: 1_647_022_311,
                expiresAt: 1_352_419_328, isValid: true, issuedAt: 1_347_235_328,
                metadata: ["sso": "iphone-safari", "auth_type": "rerequest"], scopes: ["email", "public_profile"],
                granularScopes: [
                    GranularScope(scope: "email"), GranularScope(scope: "pages_show_list", targetIDs: ["123"]),
                ],
                userID: "1207059"))
        let expected =
            #"{"data":{"app_id":"138483919580948","type":"USER","application":"Social Cafe","#
            + #""data_access_expires_at":1647022311,"expires_at":1352419328,"is_valid":true,"#
            + #""issued_at":1347235328,"metadata":{"auth_type":"rerequest","sso":"iphone-safari"},"#
            + #""scopes":["email","public_profile"],"granular_scopes":[{"scope":"email"},"#
            + #"{"scope":"pages_show_list","target_ids":["123"]}],"user_id":"1207059"}}"#
        #expect(try JSONValue(encoding: response).serialized() == expected)
        #expect(try JSONDecoder().decode(DebugTokenResponse.self, from: Data(expected.utf8)) == response)
    }

    @Test func garbageTokenMatchesObservedAnswer() throws {
        let response = DebugTokenResponse(
            data: DebugTokenData(
                isValid: false, scopes: [], error: DebugTokenError(GraphError.invalidTokenFormat)))
        #expect(
            try JSONValue(encoding: response).serialized()
                == #"{"data":{"error":{"code":190,"message":"Invalid OAuth access token - Cannot parse access token"},"is_valid":false,"scopes":[]}}"#
        )
    }

    @Test func expiredTokenUsesSubcodeKey() throws {
        let error = DebugTokenError(code: 190, message: "expired", subcode: 463)
        #expect(try JSONValue(encoding: error).serialized() == #"{"code":190,"message":"expired","subcode":463}"#)
    }

    @Test func decodesNumericIDs() throws {
        let wire = #"{"data":{"app_id":138483919580948,"is_valid":true,"user_id":1207059}}"#
        let decoded = try JSONDecoder().decode(DebugTokenResponse.self, from: Data(wire.utf8))
        #expect(decoded.data.appID == "138483919580948")
        #expect(decoded.data.userID == "1207059")
    }
}
