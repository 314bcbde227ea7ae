#if canImport(UIKit) && !os(watchOS)
import UIKit

/// Hears what an `FBLoginButton` did (Facebook's `LoginButtonDelegate`, with the same methods).
/// Calls arrive on the main actor.
@MainActor
public protocol LoginButtonDelegate: AnyObject {
    func loginButton(
        _ loginButton: FBLoginButton, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?)
    func loginButtonDidLogOut(_ loginButton: FBLoginButton)
    /// Optional: the default answer is true.
    func loginButtonWillLogin(_ loginButton: FBLoginButton) -> Bool
    /// The seeds' `FBLoginViewDelegate` calls, from the button (see ``LoginButtonModelDelegate``). Optional.
    func loginViewFetchedUserInfo(_ loginView: FBLoginButton, user: Profile)
    func loginViewShowingLoggedInUser(_ loginView: FBLoginButton)
    func loginViewShowingLoggedOutUser(_ loginView: FBLoginButton)
    /// A failed login, or a session closed from outside the app.
    func loginView(_ loginView: FBLoginButton, handleError error: any Error)
}

extension LoginButtonDelegate {
    public func loginButtonWillLogin(_ loginButton: FBLoginButton) -> Bool { true }
    public func loginViewFetchedUserInfo(_ loginView: FBLoginButton, user: Profile) {}
    public func loginViewShowingLoggedInUser(_ loginView: FBLoginButton) {}
    public func loginViewShowingLoggedOutUser(_ loginView: FBLoginButton) {}
    public func loginView(_ loginView: FBLoginButton, handleError error: any Error) {}
}

/// Facebook's login button for UIKit: a thin view over `LoginButtonModel`, which holds every decision.
///
/// Registered with the Objective-C runtime as `FBSDKLoginButton`, so storyboards written for Facebook's SDK
/// find it. The condition is always true on Apple platforms; it lets the Linux type-check of this file against
/// stubbed UIKit (AppleLayerTypeCheckTests) run without an Objective-C runtime. For the same reason the tap is a
/// `UIAction`, not a `#selector`.
@MainActor
#if canImport(ObjectiveC)
@objc(FBSDKLoginButton)
#endif
open class FBLoginButton: UIButton {
    /// The state and behaviour this button draws.
    public let model: LoginButtonModel
    private let forwarder = ButtonDelegateForwarder()

    /// Hears logins and log-outs, with this button, on the main actor. Held weakly. Setting it tells the
    /// new delegate what the button shows now (`loginViewShowingLoggedIn/OutUser`), as `FBLoginView` did.
    public weak var delegate: (any LoginButtonDelegate)? {
        didSet { model.delegate = forwarder }
    }
    /// Sent as `messenger_page_id`.
    public var messengerPageId: String? {
        get { model.messengerPageId }
        set { model.messengerPageId = newValue }
    }
    /// The PKCE verifier the button's logins use.
    public var codeVerifier: CodeVerifier {
        get { model.codeVerifier }
        set { model.codeVerifier = newValue }
    }
    /// Permission names to ask for.
    public var permissions: [String] {
        get { model.permissions }
        set { model.permissions = newValue }
    }
    /// The login manager's default audience.
    public var defaultAudience: DefaultAudience {
        get { model.defaultAudience }
        set { model.defaultAudience = newValue }
    }
    /// Classic or Limited Login.
    public var loginTracking: LoginTracking {
        get { model.loginTracking }
        set { model.loginTracking = newValue }
    }
    /// The nonce for the next login; nil means a fresh UUID.
    public var nonce: String? {
        get { model.nonce }
        set { model.nonce = newValue }
    }
    /// `auth_type` for the next login.
    public var authType: LoginAuthType? {
        get { model.authType }
        set { model.authType = newValue }
    }

    /// A button over a fresh model with `GatehouseKitEnvironment.current`.
    public override init(frame: CGRect) {
        model = LoginButtonModel()
        super.init(frame: frame)
        configure()
    }

    public required init?(coder: NSCoder) {
        model = LoginButtonModel()
        super.init(coder: coder)
        configure()
    }

    private func configure() {
        forwarder.button = self
        model.delegate = forwarder
        addAction(UIAction { [weak self] _ in self?.buttonPressed() }, for: .touchUpInside)
        model.confirmLogOut = { [weak self] confirmation in
            await self?.confirm(confirmation) ?? false
        }
        refresh()
    }

    /// Re-reads the login state into the title and selection.
    public func refresh() {
        setTitle(model.title, for: .normal)
        isSelected = model.isLoggedIn
    }

    open override func didMoveToWindow() {
        super.didMoveToWindow()
        refresh()
    }

    private func buttonPressed() {
        Task { @MainActor in
            await model.press()
            refresh()
        }
    }

    /// Facebook's action sheet: "Logged in as …", "Log Out", "Cancel".
    private func confirm(_ confirmation: LogOutConfirmation) async -> Bool {
        guard let presenter = window?.rootViewController else { return false }
        return await withCheckedContinuation { continuation in
            let sheet = UIAlertController(title: confirmation.title, message: nil, preferredStyle: .actionSheet)
            sheet.addAction(
                UIAlertAction(title: confirmation.logOutTitle, style: .destructive) { _ in
                    continuation.resume(returning: true)
                })
            sheet.addAction(
                UIAlertAction(title: confirmation.cancelTitle, style: .cancel) { _ in
                    continuation.resume(returning: false)
                })
            sheet.popoverPresentationController?.sourceView = self
            presenter.present(sheet, animated: true)
        }
    }
}
/// Passes the model's delegate calls to the button's delegate, with the button, on the main actor.
private final class ButtonDelegateForwarder: LoginButtonModelDelegate, @unchecked Sendable {
    weak var button: FBLoginButton?

    func loginButton(
        _ loginButton: LoginButtonModel, didCompleteWith result: LoginManagerLoginResult?, error: (any Error)?
    ) {
        onMain { button in button.delegate?.loginButton(button, didCompleteWith: result, error: error) }
    }

    func loginButtonDidLogOut(_ loginButton: LoginButtonModel) {
        onMain { button in button.delegate?.loginButtonDidLogOut(button) }
    }

    func loginViewFetchedUserInfo(_ loginView: LoginButtonModel, user: Profile) {
        onMain { button in button.delegate?.loginViewFetchedUserInfo(button, user: user) }
    }

    func loginViewShowingLoggedInUser(_ loginView: LoginButtonModel) {
        onMain { button in
            button.delegate?.loginViewShowingLoggedInUser(button); button.refresh()
        }
    }

    func loginViewShowingLoggedOutUser(_ loginView: LoginButtonModel) {
        onMain { button in
            button.delegate?.loginViewShowingLoggedOutUser(button); button.refresh()
        }
    }

    func loginView(_ loginView: LoginButtonModel, handleError error: any Error) {
        onMain { button in button.delegate?.loginView(button, handleError: error) }
    }

    func loginButtonWillLogin(_ loginButton: LoginButtonModel) -> Bool {
        // Asked synchronously before a login: answer on the main thread without a deadlock.
        let ask: @Sendable () -> Bool = { [weak self] in
            MainActor.assumeIsolated {
                guard let button = self?.button else { return true }
                return button.delegate?.loginButtonWillLogin(button) ?? true
            }
        }
        return Thread.isMainThread ? ask() : DispatchQueue.main.sync(execute: ask)
    }

    private func onMain(_ body: @escaping @MainActor @Sendable (FBLoginButton) -> Void) {
        Task { @MainActor [weak self] in
            guard let button = self?.button else { return }
            body(button)
        }
    }
}
#endif
