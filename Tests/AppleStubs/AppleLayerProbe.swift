// Added to the copy of GatehouseKit that AppleLayerTypeCheckTests type-checks against the stubs. It names one
// declaration from each Apple-only branch, so the check fails if a condition left a branch out (a stub module not
// found, a `#if` that no longer matches) instead of passing over code it never compiled.
import AuthenticationServices
import UIKit

@MainActor
private func appleLayerProbe(
    application: UIApplication, url: URL, activity: NSUserActivity, delegate: any LoginButtonDelegate
) {
    let _: [Any.Type] = [
        FBLoginButton.self, FBProfilePictureView.self, WebAuthenticationSessionPresenter.self, KeychainTokenCache.self,
    ]
    // LoginButtonDelegate is the UIKit protocol taking an FBLoginButton, not the model's delegate.
    delegate.loginButtonDidLogOut(FBLoginButton(frame: .zero))
    ApplicationDelegate.shared.application(application, open: url, options: [:])
    ApplicationDelegate.shared.application(application, didFinishLaunchingWithOptions: nil)
    _ = ApplicationDelegate.shared.application(application, continue: activity)
}
