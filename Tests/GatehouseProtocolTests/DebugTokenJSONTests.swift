import Testing
import GatehouseProtocol

/// `debug_token` builds its reply without an encoder (``DebugTokenResponse/json``); these hold that reply equal,
/// key for key and byte for byte, to what the `Encodable` conformance writes.
@Suite struct DebugTokenJSONTests {
    /// Every combination of present and absent fields (twelve optional parts), with values that need escaping.
    @Test func theDirectReplyEqualsTheEncodedOneForEveryShape() throws {
        var shapes = 0
        for mask in 0..<(1 << 12) {
            func has(_ bit: Int) -> Bool { mask & (1 << bit) != 0 }
            let data = DebugTokenData(
                appID: has(0) ? "100000000000001" : nil, type: has(1) ? "USER" : nil,
                application: has(2) ? "Caf\u{E9} \"Quotes\"\n" : nil,
                dataAccessExpiresAt: has(3) ? 1_790_000_000 : nil, expiresAt: has(4) ? 0 : nil, isValid: has(5),
                issuedAt: has(6) ? 1_782_000_000 : nil,
                metadata: has(7) ? ["sso": "dialog", "auth_type": "rerequest", "default_audience": "friends"] : nil,
                scopes: has(8) ? ["public_profile", "email"] : nil,
                granularScopes: has(9)
                    ? [GranularScope(scope: "email"), GranularScope(scope: "pages_show_list", targetIDs: ["1", "2"])]
                    : nil,
                userID: has(10) ? "1234567890" : nil,
                error: has(11)
                    ? DebugTokenError(
                        code: 190, message: "Error validating access token: \\ expired",
                        subcode: mask % 2 == 0 ? 463 : nil) : nil)
            let response = DebugTokenResponse(data: data)
            let encoded = try JSONValue(encoding: response)
            #expect(response.json == encoded, "shape \(mask)")
            #expect(response.json.serialized() == encoded.serialized(), "shape \(mask)")
            shapes += 1
        }
        #expect(shapes == 4096)
    }

    @Test func aValidUserTokenReadsInFacebooksOrder() {
        let data = DebugTokenData(
            appID: "1", type: "USER", application: "A", dataAccessExpiresAt: 3, expiresAt: 2, isValid: true,
            issuedAt: 1,
            metadata: ["sso": "dialog", "auth_type": "rerequest"], scopes: ["email"],
            granularScopes: [GranularScope(scope: "email")],
            userID: "9")
        #expect(
            DebugTokenResponse(data: data).json.serialized()
                == #"{"data":{"app_id":"1","type":"USER","application":"A","data_access_expires_at":3,"#
                + #""expires_at":2,"is_valid":true,"issued_at":1,"metadata":{"auth_type":"rerequest","#
                + #""sso":"dialog"},"scopes":["email"],"granular_scopes":[{"scope":"email"}],"user_id":"9"}}"#
        )
    }
}
