import Foundation

/// A dialog run by a `LoginManager` (the app switch, or any `LoginDialogPresenting`), with a test of
/// whether it can show here.
public struct LoginManagerDialog: LoginBehaviorPresenting {
    public let kind: LoginDialogKind
    public let manager: LoginManager
    private let available: @Sendable () async -> Bool

    /// - Parameter available: asked before each login; a dialog that needs a URL scheme or a browser says no without one.
    public init(kind: LoginDialogKind, manager: LoginManager, available: @escaping @Sendable () async -> Bool) {
        self.kind = kind
        self.manager = manager
        self.available = available
    }

    public func isAvailable() async -> Bool { await available() }

    public func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async
        -> SessionLoginOutcome
    {
        await manager.logIn(permissions: permissions, authType: authType, defaultAudience: defaultAudience)
    }
}

/// Device login as a ``LoginBehavior`` dialog: shows the code through `showCode` and waits for the person
/// to enter it elsewhere. Available when the app has an id and a client token (the flow's only needs).
public struct DeviceLoginDialog: LoginBehaviorPresenting {
    public var kind: LoginDialogKind { .device }
    private let fixedEnvironment: GatehouseKitEnvironment?
    private let showCode: @Sendable (DeviceLoginCodeInfo) -> Void

    /// - Parameters:
    ///   - showCode: tells the person where to go and what to type; the default writes it to standard error,
    ///     which is what a headless machine has.
    public init(environment: GatehouseKitEnvironment? = nil, showCode: (@Sendable (DeviceLoginCodeInfo) -> Void)? = nil)
    {
        fixedEnvironment = environment
        self.showCode =
            showCode ?? { info in
                FileHandle.standardError.write(
                    Data("To log in, visit \(info.verificationURL) and enter \(info.loginCode)\n".utf8))
            }
    }

    public func isAvailable() async -> Bool {
        let settings = (fixedEnvironment ?? .current).settings
        return settings.appID?.isEmpty == false && settings.clientToken?.isEmpty == false
    }

    public func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async
        -> SessionLoginOutcome
    {
        let manager = DeviceLoginManager(
            permissions: permissions, enableSmartLogin: false, environment: fixedEnvironment ?? .current)
        do {
            let result = try await manager.login(started: showCode)
            guard let token = result.accessToken, !result.isCancelled else { return .cancelled }
            return .success(token)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(error)
        }
    }
}

extension LoginBehaviorLogin {
    /// The dialogs this platform offers by default, for `environment` (nil: the current one at each login).
    ///
    /// - `.nativeApp`: a `LoginManager` on ``URLSchemeLoginPresenter``, available when the app has a URL
    ///   scheme and the platform can open URLs (UIKit, AppKit; never on Linux without an opener).
    /// - `.browser`: `ASWebAuthenticationSession` on Apple platforms with AuthenticationServices; none elsewhere.
    /// - `.webView`: none built in. Register one (a `WKWebView` presenter, or `GatehouseKitLoopback`'s
    ///   loopback flow on Linux) with `LoginManagerDialog(kind: .webView, …)` in ``Session/loginBehaviorPresenters``.
    /// - `.device`: ``DeviceLoginDialog``.
    public static func platformPresenters(environment: GatehouseKitEnvironment? = nil) -> [any LoginBehaviorPresenting]
    {
        let urlScheme = URLSchemeLoginPresenter(environment: environment)
        var presenters: [any LoginBehaviorPresenting] = [
            LoginManagerDialog(
                kind: .nativeApp,
                manager: LoginManager(defaultAudience: .friends, presenter: urlScheme, environment: environment)
            ) {
                urlScheme.isAvailable
            }
        ]
        #if canImport(AuthenticationServices) && canImport(UIKit) && !os(watchOS) && !os(tvOS)
        let web = WebAuthenticationSessionPresenter(environment: environment)
        presenters.append(
            LoginManagerDialog(
                kind: .browser,
                manager: LoginManager(defaultAudience: .friends, presenter: web, environment: environment)
            ) {
                (environment ?? .current).settings.appURLScheme != nil
            })
        #endif
        presenters.append(DeviceLoginDialog(environment: environment))
        return presenters
    }
}
