#if canImport(UIKit) && !os(watchOS)
import UIKit

/// Facebook's login button for UIKit: a thin view over `LoginButtonModel`, which holds every decision.
@MainActor
open class FBLoginButton: UIButton {
    /// The state and behaviour this button draws.
    public let model: LoginButtonModel

    /// Hears logins and log-outs (with the button's `model`).
    public var delegate: (any LoginButtonDelegate)? {
        get { model.delegate }
        set { model.delegate = newValue }
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
        addTarget(self, action: #selector(buttonPressed), for: .touchUpInside)
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

    @objc private func buttonPressed() {
        Task { @MainActor in
            if model.isLoggedIn { try? await model.loadUserName() }
            await model.tap()
            refresh()
        }
    }

    /// Facebook's action sheet: "Logged in as …", "Log Out", "Cancel".
    private func confirm(_ confirmation: LogOutConfirmation) async -> Bool {
        guard let presenter = window?.rootViewController else { return false }
        return await withCheckedContinuation { continuation in
            let sheet = UIAlertController(title: confirmation.title, message: nil, preferredStyle: .actionSheet)
            sheet.addAction(UIAlertAction(title: confirmation.logOutTitle, style: .destructive) { _ in
                continuation.resume(returning: true)
            })
            sheet.addAction(UIAlertAction(title: confirmation.cancelTitle, style: .cancel) { _ in
                continuation.resume(returning: false)
            })
            sheet.popoverPresentationController?.sourceView = self
            presenter.present(sheet, animated: true)
        }
    }
}
#endif
