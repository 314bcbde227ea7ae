import Foundation
import GatehouseProtocol

/// What the SDK remembers about the login it started, to check and finish its callback
/// (Facebook keeps these in the keychain as `expected_login_challenge`, `…_nonce`, `…_code_verifier`).
public struct LoginExpectations: Sendable {
    /// The `state.challenge` the callback must echo (as stored, not percent-encoded).
    public var challenge: String
    /// The configuration's nonce, expected in the id_token.
    public var nonce: String
    /// The PKCE verifier a returned code is redeemed with.
    public var codeVerifier: CodeVerifier
    /// The `redirect_uri` the dialog got; the code exchange must repeat it.
    public var redirectURI: String
    /// `.limited` logins never keep an access token.
    public var tracking: LoginTracking
    /// Permission names this login asked for.
    public var requestedPermissions: Set<String>

    /// Everything one login must remember until its callback arrives.
    public init(
        challenge: String, nonce: String, codeVerifier: CodeVerifier, redirectURI: String, tracking: LoginTracking,
        requestedPermissions: Set<String>
    ) {
        self.challenge = challenge
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.tracking = tracking
        self.requestedPermissions = requestedPermissions
    }
}

/// The next step after reading a login callback.
public enum LoginCallbackStep: Sendable {
    case cancelled
    case failed(any Error)
    /// Redeem the PKCE code at `oauth/access_token`, then finish with the merged parameters.
    case exchangeCode(String, LoginTokenParameters)
    /// Redeem the nonce with `grant_type=fb_exchange_nonce`, then finish with the merged parameters.
    case exchangeNonce(String, LoginTokenParameters)
    /// Everything needed came in the callback.
    case complete(LoginTokenParameters)
}

/// Reads a login callback by Facebook's rules (`LoginURLCompleter`, `LoginManager.completeAuthentication`).
///
/// Shared by every presenter: they only hand back the URL the dialog redirected to.
public enum LoginCallbackInterpreter {
    /// The next step for `callback`, or why it fails: pure, no I/O.
    package static func interpret(_ callback: LoginCallback, expecting expectations: LoginExpectations, now: Date)
        -> LoginCallbackStep
    {
        switch callback.outcome {
        case .cancelled:
            // Includes `error=access_denied` without `error_message`, which is how a Cancel press arrives.
            return .cancelled
        case .failed(let error, let code, let message):
            return .failed(callbackError(error: error, code: code, message: message, reason: callback.errorReason))
        case .success:
            break
        }
        // Facebook checks the challenge after redeeming a code; checking first means a forged callback
        // never gets its code redeemed. The outcome (308) is the same.
        guard let echoed = LoginDialogState.challenge(inParameter: callback.state), echoed == expectations.challenge
        else {
            return .failed(LoginError(.badChallengeString))
        }
        let code = callback.code.flatMap { $0.isEmpty ? nil : $0 }
        let idToken = callback.idToken.flatMap { $0.isEmpty ? nil : $0 }
        let nonce = callback.nonce.flatMap { $0.isEmpty ? nil : $0 }
        if code != nil, idToken != nil {
            return .failed(LoginError(.unknown, message: "the callback carried both code and id_token"))
        }
        let parameters = LoginTokenParameters(callback: callback, now: now)
        if let nonce, parameters.accessToken == nil { return .exchangeNonce(nonce, parameters) }
        if let code { return .exchangeCode(code, parameters) }
        return .complete(parameters)
    }

    /// Facebook's CoreError 8 for an error callback: developer message from `error`, else `error_message`,
    /// else `error_reason`; Graph error code from `error_code`.
    static func callbackError(error: String, code: String?, message: String, reason: String?) -> GraphAPIError {
        var body = JSONObject()
        body["error"] = .string(error)
        body["error_message"] = .string(message)
        if let code { body["error_code"] = .string(code) }
        if let reason { body["error_reason"] = .string(reason) }
        let developerMessage = [error, message, reason ?? ""].first { !$0.isEmpty } ?? message
        return GraphAPIError(
            code: code.flatMap { Int($0) } ?? 0, message: developerMessage, httpStatusCode: 0, body: .object(body))
    }
}
