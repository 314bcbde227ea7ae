import Foundation
import GatehouseProtocol

/// The Info.plist consistency checks Facebook's SDK makes before a login (FBSDKInternalUtility's
/// `validateAppID` and `validateURLSchemes`), with Facebook's messages. Facebook raises an
/// `InvalidOperationException`; GatehouseKit fails the login with `CoreError(.invalidArgument)` carrying
/// the same text, so the app sees the reason without crashing.
public enum InfoPlistCheck {
    /// Facebook's text for a missing `FacebookAppID`.
    public static let missingAppIDMessage =
        "App ID not found. Add a string value with your app ID for the key "
        + "FacebookAppID to the Info.plist or call Settings.shared.appID."

    /// Facebook's text for an app URL scheme missing from `CFBundleURLTypes`.
    public static func missingURLSchemeMessage(_ scheme: String) -> String {
        "\(scheme) is not registered as a URL scheme. Please add it in your Info.plist"
    }

    /// Why a login must not start, or nil. The URL scheme is checked when the app's schemes are known
    /// (``Settings/registeredURLSchemes``: always on Apple platforms, from the Info.plist; elsewhere when
    /// the configuration file lists `CFBundleURLTypes`), as Facebook checks it against the Info.plist.
    public static func loginRefusal(_ settings: Settings) -> CoreError? {
        guard let appID = settings.appID, !appID.isEmpty, let scheme = settings.appURLScheme else {
            return CoreError(.invalidArgument, message: missingAppIDMessage)
        }
        if let registered = settings.registeredURLSchemes,
            !registered.contains(where: { $0.caseInsensitiveCompare(scheme) == .orderedSame })
        {
            return CoreError(.invalidArgument, message: missingURLSchemeMessage(scheme))
        }
        return nil
    }

    /// The warning when `FacebookDisplayName` differs from the app's name on the server (which the login
    /// dialog shows), or nil when they agree or no display name is set. A warning, not a refusal: the
    /// login works, but the person sees one name in the app and another in the dialog.
    public static func displayNameWarning(displayName: String?, serverAppName: String) -> String? {
        guard let displayName, displayName != serverAppName else { return nil }
        return
            "FacebookDisplayName \"\(displayName)\" in the Info.plist does not match the app's name \"\(serverAppName)\" "
            + "on the server. Set FacebookDisplayName to the name in the app's settings."
    }

    /// Asks the server for the app's name (`debug_token` on `token`, which names its `application`) and
    /// compares it with `Settings.displayName`. Logged (stderr) with `.developerErrors` enabled after each
    /// login; nil when the names agree, no display name is set, or the server could not be asked.
    public static func displayNameWarning(token: AccessToken, environment: GatehouseKitEnvironment) async -> String? {
        guard let displayName = environment.settings.displayName,
            let reply = try? await GraphTransport(environment: environment).send(
                method: "GET", path: "debug_token", parameters: ["input_token": token.tokenString],
                tokenString: token.tokenString),
            case .string(let name)? = reply.json?["data"]?["application"]
        else { return nil }
        return self.displayNameWarning(displayName: displayName, serverAppName: name)
    }
}
