import Foundation
import GatehouseProtocol

/// The Graph calls finishing a login needs; `GraphTransport` in the SDK, a fake in unit tests.
protocol LoginGraphClient: Sendable {
    func get(_ path: String, parameters: [String: String], tokenString: String?) async throws -> GraphHTTPResponse
}

extension GraphTransport: LoginGraphClient {
    func get(_ path: String, parameters: [String: String], tokenString: String?) async throws -> GraphHTTPResponse {
        try await send(method: "GET", path: path, parameters: parameters, tokenString: tokenString)
    }
}

/// How a callback ended, before the SDK stores anything.
struct LoginCompletion: Sendable {
    var result: LoginManagerLoginResult?
    var error: (any Error)?
    /// The `user_token_nonce` to send with the next login.
    var userTokenNonce: String?
    /// A Limited Login's profile, built from the verified id_token.
    var limitedProfile: Profile?

    static let cancelled = LoginCompletion(result: .cancelled, error: nil)
    static func failed(_ error: any Error) -> LoginCompletion { LoginCompletion(result: nil, error: error) }
}

/// Finishes a login from its callback URL: the one callback path every presenter feeds.
///
/// Reads the callback (`LoginCallbackInterpreter`), redeems a code or nonce, learns the user id, refuses
/// a different user than the current token's, and builds the result (`LoginResultBuilder`).
struct LoginCompleter: Sendable {
    var graph: any LoginGraphClient
    var appID: String
    var clientToken: String?

    /// Anonymous calls use `appID|clientToken`, as Facebook's SDK does for the code exchange.
    private var clientAccessToken: String? { clientToken.map { "\(appID)|\($0)" } }

    func complete(callbackURL: URL?, expectations: LoginExpectations, previousToken: AccessToken?, now: Date) async
        -> LoginCompletion
    {
        guard let callbackURL else { return .cancelled }
        guard let callback = LoginCallback(url: callbackURL) else {
            return .failed(LoginError(.unknown, message: "the login callback URL could not be read"))
        }
        var parameters: LoginTokenParameters
        do {
            switch LoginCallbackInterpreter.interpret(callback, expecting: expectations, now: now) {
            case .cancelled:
                return .cancelled
            case .failed(let error):
                return .failed(error)
            case .complete(let gathered):
                parameters = gathered
            case .exchangeCode(let code, let gathered):
                parameters = gathered
                try parameters.merge(
                    tokenEndpointReply: try await tokenEndpoint([
                        "client_id": appID, "redirect_uri": expectations.redirectURI,
                        "code_verifier": expectations.codeVerifier.value, "code": code,
                    ]), now: now)
            case .exchangeNonce(let nonce, let gathered):
                parameters = gathered
                try parameters.merge(
                    tokenEndpointReply: try await tokenEndpoint([
                        "grant_type": "fb_exchange_nonce", "fb_exchange_nonce": nonce, "client_id": appID, "fields": "",
                        // The dialog was sent our code challenge; the server binds the nonce to it.
                        "code_verifier": expectations.codeVerifier.value,
                    ]), now: now)
            }
            if expectations.tracking == .enabled, let tokenString = parameters.accessToken {
                parameters.userID = try await checkedUserID(
                    tokenString: tokenString, known: parameters.userID, previousToken: previousToken)
            }
        } catch {
            return .failed(error)
        }
        let result = LoginResultBuilder.result(
            parameters: parameters, expectations: expectations, previousToken: previousToken, appID: appID, now: now)
        return LoginCompletion(result: result, error: nil, userTokenNonce: parameters.userTokenNonce)
    }

    /// GET `oauth/access_token`; a Graph error reply becomes Facebook's CoreError 2.
    private func tokenEndpoint(_ parameters: [String: String]) async throws -> JSONValue {
        let reply = try await graph.get(WirePath.accessToken, parameters: parameters, tokenString: clientAccessToken)
        guard let json = reply.json else {
            throw CoreError(
                .invalidArgument, message: "the token endpoint answered HTTP \(reply.statusCode) without JSON")
        }
        if let error = GraphAPIError(body: json, httpStatusCode: reply.statusCode) {
            throw CoreError(.invalidArgument, message: "token endpoint: \(error.message)")
        }
        return json
    }

    /// The new token's user. With a previous token, Facebook asks `me?fields=` with the new token and
    /// refuses another user (LoginError 304); without one, the id comes from the callback or `me?fields=id`.
    private func checkedUserID(tokenString: String, known: String?, previousToken: AccessToken?) async throws -> String?
    {
        if let previousToken {
            let id = try await meID(fields: "", tokenString: tokenString)
            guard id == previousToken.userID else {
                throw LoginError(.userMismatch, message: "the login returned another user than the current token's")
            }
            return known ?? id
        }
        if let known, !known.isEmpty { return known }
        return try await meID(fields: "id", tokenString: tokenString)
    }

    private func meID(fields: String, tokenString: String) async throws -> String {
        let reply = try await graph.get("me", parameters: ["fields": fields], tokenString: tokenString)
        guard let json = reply.json else {
            throw CoreError(.graphAPI, message: "me answered HTTP \(reply.statusCode) without JSON")
        }
        if let error = GraphAPIError(body: json, httpStatusCode: reply.statusCode) { throw error }
        if let id = json["id"]?.stringValue, !id.isEmpty { return id }
        if let id = json["id"]?.intValue { return String(id) }
        throw LoginError(.unknown, message: "me returned no id")
    }
}
