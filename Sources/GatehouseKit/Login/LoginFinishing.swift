import Foundation

/// The last two steps every login shares, whether its callback reaches the `LoginManager` that started
/// it or a relaunched process (``ApplicationDelegate/completePendingLogin(url:)``).
enum LoginFinishing {
    /// Reads the callback, redeems a code or nonce, and verifies an id_token against the server's keys
    /// and the nonce sent: an id_token is trusted only once verified.
    static func complete(
        callbackURL: URL?, expectations: LoginExpectations, environment: GatehouseKitEnvironment,
        graph: any LoginGraphClient, appID: String
    ) async throws -> LoginCompletion {
        let completer = LoginCompleter(graph: graph, appID: appID, clientToken: environment.settings.clientToken)
        var completion = await completer.complete(
            callbackURL: callbackURL, expectations: expectations, previousToken: environment.currentAccessToken,
            now: environment.clock.now())
        if let result = completion.result, let idToken = result.authenticationToken {
            let (verified, claims) = try await AuthenticationTokenVerifier(environment: environment)
                .verify(idToken.tokenString, nonce: expectations.nonce)
            completion.result = LoginManagerLoginResult(
                token: result.token, authenticationToken: verified, isCancelled: result.isCancelled,
                grantedPermissions: result.grantedPermissions, declinedPermissions: result.declinedPermissions)
            if expectations.tracking == .limited {
                completion.limitedProfile = Profile(claims: claims, now: environment.clock.now())
            }
        }
        return completion
    }

    /// Makes the result current. The authentication token goes first, so `.AccessTokenDidChange`
    /// observers already see it. A Limited Login sets `AccessToken.current` to nil and `Profile.current`
    /// from the verified id_token's claims, as Facebook's SDK does.
    static func store(_ completion: LoginCompletion, in environment: GatehouseKitEnvironment) {
        guard let result = completion.result else { return }
        if !result.isCancelled {
            environment.setCurrentAuthenticationToken(result.authenticationToken)
            environment.setCurrentAccessToken(result.token)
            if let profile = completion.limitedProfile { Profile.setCurrent(profile, in: environment) }
        } else if let authenticationToken = result.authenticationToken {
            environment.setCurrentAuthenticationToken(authenticationToken)
        }
    }
}

/// Keeps the login waiting for its callback in the environment's token cache (``TokenCaching/pendingLogin``).
enum PendingLoginStore {
    static func save(_ state: PendingLoginState, in environment: GatehouseKitEnvironment) {
        // Through a local: assigning via `environment.tokenCache?` could write the cache property back.
        guard let cache = environment.tokenCache else { return }
        cache.pendingLogin = state
    }

    /// Clears `state` unless a newer login has replaced it meanwhile.
    static func clear(_ state: PendingLoginState, in environment: GatehouseKitEnvironment) {
        guard let cache = environment.tokenCache, cache.pendingLogin?.challenge == state.challenge else { return }
        cache.pendingLogin = nil
    }

    /// Takes the pending login out of the cache (a callback is used once), if there is a fresh one.
    static func take(in environment: GatehouseKitEnvironment) -> PendingLoginState? {
        guard let cache = environment.tokenCache, let state = cache.pendingLogin else { return nil }
        cache.pendingLogin = nil
        let age = environment.clock.now().timeIntervalSince(state.startedAt)
        return age >= 0 && age <= PendingLoginState.maximumAge ? state : nil
    }
}

extension PendingLoginState {
    /// What the callback is checked against.
    var expectations: LoginExpectations {
        LoginExpectations(
            challenge: challenge, nonce: nonce, codeVerifier: CodeVerifier(string: codeVerifier) ?? CodeVerifier(),
            redirectURI: redirectURI, tracking: isLimited ? .limited : .enabled, requestedPermissions: Set(permissions))
    }
}
