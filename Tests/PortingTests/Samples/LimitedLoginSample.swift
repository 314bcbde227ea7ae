// Facebook's Limited Login sample: a configuration with `.limited` tracking and a nonce, then the
// authentication token and profile. Ported by changing the import.
import GatehouseKit

enum LimitedLoginSample {
    /// The sample's configuration; nil when the nonce or permissions are invalid, as Facebook's is.
    static func configuration(nonce: String) -> LoginConfiguration? {
        LoginConfiguration(permissions: [.publicProfile, .email, .userFriends], tracking: .limited, nonce: nonce)
    }

    /// The sample's login call.
    static func logIn(with manager: LoginManager, nonce: String, done: @escaping @Sendable (String) -> Void) {
        guard let configuration = configuration(nonce: nonce) else { return done("invalid configuration") }
        manager.logIn(configuration: configuration) { result in
            switch result {
            case .cancelled: done("cancelled")
            case .failed(let error): done("failed: \((error as NSError).domain) \((error as NSError).code)")
            case .success:
                let claims = AuthenticationToken.current?.claims()
                done(
                    "limited: \(Profile.current?.name ?? claims?.name ?? "?"), access token \(AccessToken.current == nil ? "none" : "present")"
                )
            }
        }
    }
}
