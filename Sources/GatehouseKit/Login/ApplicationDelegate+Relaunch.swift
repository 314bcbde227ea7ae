import Foundation
import GatehouseProtocol

/// Finishing a login whose callback reaches a freshly started process (seed 001: the app was killed
/// while the person was in the browser; it sets its session handler, then handles the opened URL).
extension ApplicationDelegate {
    /// Whether `url` is a login callback on this app's scheme (`fb{appID}{suffix}://authorize…`).
    static func isLoginCallback(_ url: URL, in environment: GatehouseKitEnvironment) -> Bool {
        guard let scheme = environment.settings.appURLScheme else { return false }
        return url.scheme?.lowercased() == scheme.lowercased() && url.host?.lowercased() == "authorize"
    }

    /// Completes the login remembered in the token cache (``TokenCaching/pendingLogin``) with `url`,
    /// makes its tokens current (so a waiting `Session` opens), and returns how it ended.
    ///
    /// Returns nil, changing nothing, when `url` is not a login callback or no fresh login is pending.
    /// The pending login is used once: a second call with the same URL returns nil.
    public func completePendingLogin(url: URL, environment: GatehouseKitEnvironment = .current) async -> LoginResult? {
        guard Self.isLoginCallback(url, in: environment), let appID = environment.settings.appID,
            let state = PendingLoginStore.take(in: environment)
        else { return nil }
        let completion: LoginCompletion
        do {
            completion = try await LoginFinishing.complete(
                callbackURL: url, expectations: state.expectations, environment: environment,
                graph: GraphTransport(environment: environment), appID: appID)
        } catch {
            return .failed(error)
        }
        LoginFinishing.store(completion, in: environment)
        return LoginResult(result: completion.result, error: completion.error)
    }

    /// The synchronous form `handleOpen(url:)` uses: true when a pending login will be completed.
    func resumePendingLogin(url: URL) -> Bool {
        let environment = GatehouseKitEnvironment.current
        guard Self.isLoginCallback(url, in: environment), environment.tokenCache?.pendingLogin != nil else {
            return false
        }
        Task { _ = await completePendingLogin(url: url, environment: environment) }
        return true
    }
}
