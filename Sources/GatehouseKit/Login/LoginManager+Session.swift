import Foundation

/// `LoginManager` as the `Session`'s dialog runner.
extension LoginManager: SessionLoginProviding {
    /// A login for the session: these permissions, this `auth_type` and audience. Never dropped by the
    /// start-state rule (it supersedes a login in progress instead), so the session always hears back.
    /// `LoginManager` stores the new token in `AccessToken.current` before returning it.
    public func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async
        -> SessionLoginOutcome
    {
        guard
            let configuration = LoginConfiguration(
                permissions: permissions, tracking: .enabled, nonce: UUID().uuidString, messengerPageId: nil,
                authType: authType.map(LoginAuthType.init(rawValue:)), appSwitch: .enabled, codeVerifier: CodeVerifier()
            )
        else {
            return .failed(
                CoreError(.invalidArgument, message: "invalid permission names or auth type \(authType ?? "nil")"))
        }
        let completion: LoginCompletion
        do {
            completion = try await awaitLogin(configuration, audience: defaultAudience, checksState: false)
        } catch {
            return .failed(error)
        }
        if let error = completion.error { return .failed(error) }
        guard let result = completion.result else { return .failed(LoginError(.unknown)) }
        if result.isCancelled { return .cancelled }
        guard let token = result.token else {
            return .failed(LoginError(.unknown, message: "the login returned no access token"))
        }
        return .success(token)
    }
}
