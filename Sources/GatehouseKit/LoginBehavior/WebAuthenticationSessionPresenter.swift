#if canImport(AuthenticationServices) && canImport(UIKit) && !os(watchOS) && !os(tvOS)
import AuthenticationServices
import Foundation
import UIKit

/// The browser dialog on Apple platforms, as Facebook's SDK shows it: an `ASWebAuthenticationSession`
/// with callback scheme `fb{appID}{suffix}`, not ephemeral (the person's browser login is reused).
///
/// Not compiled by Linux builds; AppleLayerTypeCheckTests type-checks it against stubs, the Apple CI workflow builds
/// it. Its decisions live in ``WebAuthenticationCompletion``.
public final class WebAuthenticationSessionPresenter: LoginDialogPresenting, @unchecked Sendable {
    private let fixedEnvironment: GatehouseKitEnvironment?

    /// - Parameter environment: where the app id and scheme suffix come from; nil means the current one.
    public init(environment: GatehouseKitEnvironment? = nil) {
        fixedEnvironment = environment
    }

    /// `fb{appID}{suffix}://authorize/`; CoreError 2 without an app id.
    public func prepare() async throws -> String {
        try WebAuthenticationCompletion.callbackScheme(environment: fixedEnvironment) + "://authorize/"
    }

    /// Shows the session; nil when the person cancelled, CoreError 12 when it could not start.
    public func present(_ url: URL) async throws -> URL? {
        try await Self.run(
            url: url, scheme: WebAuthenticationCompletion.callbackScheme(environment: fixedEnvironment))
    }

    @MainActor
    private static func run(url: URL, scheme: String) async throws -> URL? {
        // The session holds its context provider weakly and nothing else holds the session: keep both
        // until the completion runs.
        let keeper = Keeper()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL?, any Error>) in
            let session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme) { callback, error in
                keeper.release()
                let cancelled = (error as? ASWebAuthenticationSessionError)?.code == .canceledLogin
                continuation.resume(
                    with: WebAuthenticationCompletion.result(
                        callback: callback, error: error, cancelledByPerson: cancelled))
            }
            keeper.session = session
            session.presentationContextProvider = keeper.anchor
            session.prefersEphemeralWebBrowserSession = false
            if !session.start() {
                continuation.resume(throwing: WebAuthenticationCompletion.notStarted)
            }
        }
    }
}

/// Keeps a running session and its anchor alive.
private final class Keeper: @unchecked Sendable {
    var session: ASWebAuthenticationSession?
    let anchor = MainActor.assumeIsolated { AnchorProvider() }
    func release() { session = nil }
}

/// Anchors the session to the app's key window.
@MainActor
private final class AnchorProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        let windows = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }.flatMap(\.windows)
        return windows.first { $0.isKeyWindow } ?? ASPresentationAnchor()
    }
}
#endif
