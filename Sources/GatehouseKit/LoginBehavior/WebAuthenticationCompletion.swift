import Foundation

/// ``WebAuthenticationSessionPresenter``'s decisions without AuthenticationServices, so they are tested on every
/// platform: the callback scheme it registers and how the session's completion becomes the dialog's answer.
enum WebAuthenticationCompletion {
    /// `fb{appID}{suffix}`, the scheme the session waits for; CoreError 2 without an app id.
    static func callbackScheme(environment: GatehouseKitEnvironment?) throws -> String {
        guard let scheme = (environment ?? .current).settings.appURLScheme else {
            throw CoreError(.invalidArgument, message: "Settings.appID (FacebookAppID) is not set")
        }
        return scheme
    }

    /// The session's completion as the dialog's answer: nil when the person cancelled (`cancelledByPerson`, which the
    /// presenter reads from `ASWebAuthenticationSessionError.canceledLogin`); CoreError 12 (`browserUnavailable`) with
    /// the error's description for any other error; otherwise the callback URL.
    static func result(callback: URL?, error: (any Error)?, cancelledByPerson: Bool) -> Result<URL?, any Error> {
        if cancelledByPerson { return .success(nil) }
        if let error { return .failure(CoreError(.browserUnavailable, message: error.localizedDescription)) }
        return .success(callback)
    }

    /// `start()` answered false: the session could not be shown.
    static let notStarted = CoreError(.browserUnavailable, message: "the web authentication session did not start")
}
