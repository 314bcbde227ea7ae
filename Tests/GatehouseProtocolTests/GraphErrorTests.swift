import Foundation
import Testing
import GatehouseProtocol

@Suite struct GraphErrorTests {
    /// 2021-12-11 05:00:00 PST and 2021-12-12 06:00:00 PST.
    let expiredAt = Date(timeIntervalSince1970: 1_639_227_600)
    let now = Date(timeIntervalSince1970: 1_639_317_600)

    @Test func expiredTokenEnvelopeIsByteExact() {
        let error = GraphError.tokenExpired(expiredAt: expiredAt, now: now).withTraceID("AbCdEf123")
        #expect(
            error.envelopeJSON.serialized()
                == #"{"error":{"message":"Error validating access token: Session has expired on Saturday, "#
                + #"11-Dec-21 05:00:00 PST. The current time is Sunday, 12-Dec-21 06:00:00 PST.","#
                + #""type":"OAuthException","code":190,"error_subcode":463,"fbtrace_id":"AbCdEf123"}}"#
        )
        #expect(error.httpStatus == 400)
        #expect(
            error.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_token" "Error validating access token: Session has expired "#
                + #"on Saturday, 11-Dec-21 05:00:00 PST. The current time is Sunday, 12-Dec-21 06:00:00 PST.""#
        )
    }

    @Test func expiryUsesDaylightTimeInSummer() {
        let summer = Date(timeIntervalSince1970: 1_657_000_000)
        #expect(
            GraphError.tokenExpired(expiredAt: summer, now: summer).message
                == "Error validating access token: Session has expired on Monday, 04-Jul-22 22:46:40 PDT. The "
                + "current time is Monday, 04-Jul-22 22:46:40 PDT."
        )
    }

    @Test func codeUsedEnvelopeAndHeader() {
        let error = GraphError.codeUsed
        #expect(
            error.envelopeJSON.serialized()
                == #"{"error":{"message":"This authorization code has been used.","type":"OAuthException","code":100,"error_subcode":36009}}"#
        )
        #expect(
            error.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_code" "This authorization code has been used.""#)
    }

    @Test func allOptionalMembersInFacebookOrder() throws {
        let error = GraphError(
            message: "m", code: 368, errorSubcode: 1, errorUserTitle: "T", errorUserMsg: "U",
            fbtraceID: "F", isTransient: false, explanation: "the journal's reason")
        let wire =
            #"{"error":{"message":"m","type":"OAuthException","code":368,"error_subcode":1,"#
            + #""error_user_title":"T","error_user_msg":"U","fbtrace_id":"F","is_transient":false}}"#
        // The journal's explanation is in neither encoding.
        #expect(error.envelopeJSON.serialized() == wire)
        #expect(try JSONValue(encoding: GraphErrorEnvelope(error: error)).serialized() == wire)
    }

    /// The explanation is the server's note, not part of the error a client sees: a decoded error has none and
    /// still equals the factory's.
    @Test func theExplanationIsNoPartOfTheWireError() throws {
        let decoded = try JSONDecoder().decode(
            GraphErrorEnvelope.self, from: Data(GraphError.codeUsed.envelopeJSON.serialized().utf8)
        ).error
        #expect(decoded.explanation == nil && GraphError.codeUsed.explanation != nil)
        #expect(decoded == GraphError.codeUsed)
        var other = GraphError.codeUsed
        other.explanation = "another reason"
        #expect(other == GraphError.codeUsed)
        other.errorSubcode = 36008
        #expect(other != GraphError.codeUsed)
    }

    @Test func headerKinds() {
        #expect(
            GraphError.invalidTokenFormat.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_token" "Invalid OAuth access token - Cannot parse access token""#
        )
        #expect(
            GraphError.tokenRequired.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_token" "An access token is required to request this resource.""#
        )
        #expect(GraphError.activeTokenRequired.wwwAuthenticate?.contains(#""invalid_token""#) == true)
        #expect(GraphError.codeExpired.wwwAuthenticate?.contains(#""invalid_code""#) == true)
        #expect(GraphError.redirectURIMismatch.wwwAuthenticate?.contains(#""invalid_code""#) == true)
        #expect(
            GraphError.invalidCodeFormat.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_code" "Invalid verification code format.""#)
        #expect(
            GraphError.invalidClientSecret.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_client" "Error validating client secret.""#)
        #expect(GraphError.invalidApplicationID.wwwAuthenticate?.contains(#""invalid_client""#) == true)
        #expect(GraphError.unknownError.wwwAuthenticate?.contains(#""invalid_request""#) == true)
        #expect(
            GraphError.missingPermission("email").wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_request" "(#200) Requires extended permission: email""#)
        #expect(GraphError.invalidCodeVerifier.wwwAuthenticate?.contains(#""invalid_request""#) == true)
        #expect(GraphError.appsecretProofRequired.wwwAuthenticate == nil)
        #expect(GraphError.unsupportedRequest(method: "GET", objectID: "1").wwwAuthenticate == nil)
    }

    @Test func headerCannotBeBrokenByEchoedInput() {
        let error = GraphError.invalidParameter("bad \"x\"\r\nSet-Cookie: a=b \\")
        #expect(
            error.wwwAuthenticate
                == #"OAuth "Facebook Platform" "invalid_request" "(#100) bad \"x\"  Set-Cookie: a=b \\""#)
    }

    @Test func factoriesUseExactMessagesCodesAndStatuses() {
        let cases: [(GraphError, String, String, Int, Int?, Int, Bool?)] = [
            (
                .appNotAuthorized(appID: "123"),
                "Error validating access token: The user has not authorized application 123.", "OAuthException", 190,
                458, 400, nil
            ),
            (
                .passwordChanged,
                "Error validating access token: The session has been invalidated because the user changed their "
                    + "password or Facebook has changed the session for security reasons.",
                "OAuthException", 190, 460, 400, nil
            ),
            (
                .sessionLoggedOut, "Error validating access token: The session is invalid because the user logged out.",
                "OAuthException", 190, 467, 400, nil
            ),
            (
                .tokenRequired, "An access token is required to request this resource.", "OAuthException", 104, nil,
                400, nil
            ),
            (
                .activeTokenRequired,
                "An active access token must be used to query information about the current user.", "OAuthException",
                2500, nil, 400, nil
            ),
            (.unknownPath("/x"), "Unknown path components: /x", "OAuthException", 2500, nil, 400, nil),
            (
                .missingPermission("user_friends"), "(#200) Requires extended permission: user_friends",
                "OAuthException", 200, nil, 403, nil
            ),
            (.invalidParameter("Invalid limit"), "(#100) Invalid limit", "OAuthException", 100, nil, 400, nil),
            (
                .nonexistingField("x", nodeType: "User"),
                "(#100) Tried accessing nonexisting field (x) on node type (User)", "OAuthException", 100, nil, 400, nil
            ),
            (
                .unsupportedRequest(method: "DELETE", objectID: "999"),
                "Unsupported delete request. Object with ID '999' does not exist, cannot be loaded due to missing "
                    + "permissions, or does not support this operation. Please read the Graph API documentation at "
                    + "https://developers.facebook.com/docs/graph-api",
                "GraphMethodException", 100, 33, 400, nil
            ),
            (
                .appsecretProofRequired, "API calls from the server require an appsecret_proof argument",
                "GraphMethodException", 100, nil, 400, nil
            ),
            (
                .appsecretProofInvalid, "Invalid appsecret_proof provided in the API argument", "GraphMethodException",
                100, nil, 400, nil
            ),
            (.codeExpired, "This authorization code has expired.", "OAuthException", 100, 36007, 400, nil),
            (
                .redirectURIMismatch,
                "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request",
                "OAuthException", 100, 36008, 400, nil
            ),
            (.invalidCodeFormat, "Invalid verification code format.", "OAuthException", 100, nil, 400, nil),
            (.invalidClientSecret, "Error validating client secret.", "OAuthException", 1, nil, 400, nil),
            (
                .invalidApplicationID, "Error validating application. Invalid application ID.", "OAuthException", 101,
                nil, 400, nil
            ),
            (.missingClientID, "Missing client_id parameter.", "OAuthException", 101, nil, 400, nil),
            (.invalidCodeVerifier, "Invalid code verifier.", "OAuthException", 100, nil, 400, nil),
            (
                .unexpectedCodeVerifier, "A code_verifier was sent but the login dialog was not sent a code_challenge.",
                "OAuthException", 100, nil, 400, nil
            ),
            (.unknownError, "An unknown error has occurred.", "OAuthException", 1, nil, 500, true),
            (
                .serviceUnavailable, "An unexpected error has occurred. Please retry your request later.",
                "OAuthException", 2, nil, 500, true
            ),
            (.appRateLimit, "(#4) Application request limit reached", "OAuthException", 4, nil, 403, nil),
            (.userRateLimit, "(#17) User request limit reached", "OAuthException", 17, nil, 403, nil),
            (
                .apiRateLimit, "(#613) Calls to this api have exceeded the rate limit.", "OAuthException", 613, nil,
                403, nil
            ),
        ]
        for (error, message, type, code, subcode, status, transient) in cases {
            #expect(error.message == message)
            #expect(error.type == type, "\(message)")
            #expect(error.code == code, "\(message)")
            #expect(error.errorSubcode == subcode, "\(message)")
            #expect(error.httpStatus == status, "\(message)")
            #expect(error.isTransient == transient, "\(message)")
        }
    }

    @Test func unknownErrorEnvelopeCarriesTransientFlag() {
        #expect(
            GraphError.unknownError.envelopeJSON.serialized()
                == #"{"error":{"message":"An unknown error has occurred.","type":"OAuthException","code":1,"is_transient":true}}"#
        )
    }

    @Test func codableMatchesEnvelope() throws {
        let error = GraphError.appsecretProofRequired
        let envelope = GraphErrorEnvelope(error: error)
        #expect(try JSONValue(encoding: envelope) == error.envelopeJSON)
        #expect(
            try JSONValue(encoding: envelope).serialized()
                == #"{"error":{"message":"API calls from the server require an appsecret_proof argument","type":"GraphMethodException","code":100}}"#
        )

        let wire =
            #"{"error":{"message":"m","type":"OAuthException","code":190,"error_subcode":463,"fbtrace_id":"X","is_transient":false,"error_data":{}}}"#
        let decoded = try JSONDecoder().decode(GraphErrorEnvelope.self, from: Data(wire.utf8))
        #expect(
            decoded.error
                == GraphError(wireMessage: "m", code: 190, errorSubcode: 463, fbtraceID: "X", isTransient: false))
    }
}
