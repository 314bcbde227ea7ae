import Foundation
import GatehouseProtocol

/// The dialog's `state` parameter as Facebook's iOS SDK writes it (`LoginManagerLogger`): JSON holding the
/// anti-forgery challenge the callback must echo.
public struct LoginDialogState: Sendable, Equatable {
    /// The challenge as the SDK stores it: base64 of 20 random bytes with `+` turned into `=`.
    public var challenge: String
    /// `0_auth_logger_id`, a UUID naming this login in Facebook's event logs.
    public var loggerID: String
    /// `3_method`: `sfvc_auth` (in-app browser session), `browser_auth` or `native_app_auth`.
    public var method: String

    /// A state with known values (tests, replays); `random()` makes a fresh one.
    public init(challenge: String, loggerID: String, method: String = "sfvc_auth") {
        self.challenge = challenge
        self.loggerID = loggerID
        self.method = method
    }

    /// A fresh state with a random challenge and logger id.
    public static func random(method: String = "sfvc_auth") -> LoginDialogState {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let challenge = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "=")
        return LoginDialogState(challenge: challenge, loggerID: UUID().uuidString, method: method)
    }

    /// The JSON text sent as `state`; the challenge travels percent-encoded inside it, as Facebook sends it.
    public var parameterValue: String {
        let object: JSONObject = [
            "challenge": .string(FormEncoding.escape(challenge)),
            "0_auth_logger_id": .string(loggerID),
            "3_method": .string(method),
            "com.facebook.sdk_client_state": true,
        ]
        return object.serialized()
    }

    /// The challenge a callback's `state` carries, URL-decoded; nil when `state` is not such JSON.
    public static func challenge(inParameter state: String?) -> String? {
        guard let state, let json = try? JSONValue.parse(state),
            let encoded = json["challenge"]?.stringValue
        else { return nil }
        return FormEncoding.unescape(encoded)
    }
}

/// Builds the login dialog URL exactly as Facebook's `LoginEndpoints` does, from plain inputs.
public struct LoginDialogURLBuilder: Sendable {
    /// The version Facebook's SDK reports as `sdk_version`.
    public static let sdkVersion = "18.1.0"
    static let enabledResponseType = "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce"
    static let limitedResponseType = "id_token,graph_domain,user_token_nonce"

    /// Facebook's `m.facebook.com`: `Settings.dialogURL`.
    public var dialogBaseURL: URL
    /// The version segment of the dialog path, e.g. `v27.0`.
    public var graphAPIVersion: String
    /// `client_id`.
    public var appID: String
    /// `FacebookUrlSchemeSuffix`, sent as `local_client_id` when set.
    public var urlSchemeSuffix: String?

    /// A builder from explicit values.
    public init(dialogBaseURL: URL, graphAPIVersion: String, appID: String, urlSchemeSuffix: String? = nil) {
        self.dialogBaseURL = dialogBaseURL
        self.graphAPIVersion = graphAPIVersion
        self.appID = appID
        self.urlSchemeSuffix = urlSchemeSuffix
    }

    /// Reads the dialog base, version, app id and suffix from settings; nil without an app id.
    public init?(settings: Settings) {
        guard let appID = settings.appID, !appID.isEmpty else { return nil }
        self.init(
            dialogBaseURL: settings.dialogURL, graphAPIVersion: settings.graphAPIVersion, appID: appID,
            urlSchemeSuffix: settings.appURLSchemeSuffix.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// What varies from one login to the next.
    public struct Request: Sendable {
        /// What the login asks for.
        public var configuration: LoginConfiguration
        /// The presenter's redirect URI.
        public var redirectURI: String
        /// `default_audience`.
        public var defaultAudience: DefaultAudience
        /// The anti-forgery state for `state`.
        public var state: LoginDialogState
        /// For `cbt` (epoch milliseconds).
        public var now: Date
        /// For `e2e` (`{"init":<seconds since boot>}`).
        public var uptime: TimeInterval
        /// The `user_token_nonce` the previous callback carried, if any.
        public var userTokenNonce: String?

        /// One login's inputs.
        public init(
            configuration: LoginConfiguration, redirectURI: String, defaultAudience: DefaultAudience,
            state: LoginDialogState, now: Date, uptime: TimeInterval, userTokenNonce: String? = nil
        ) {
            self.configuration = configuration
            self.redirectURI = redirectURI
            self.defaultAudience = defaultAudience
            self.state = state
            self.now = now
            self.uptime = uptime
            self.userTokenNonce = userTokenNonce
        }
    }

    /// The query parameters, sorted by key as Facebook sends them.
    public func parameters(for request: Request) -> [(String, String)] {
        let configuration = request.configuration
        let limited = configuration.tracking == .limited
        let scope = (Set(configuration.requestedPermissions.map(\.name)).union(["openid"])).sorted()
        var params: [String: String] = [
            DialogParameter.clientID: appID,
            DialogParameter.redirectURI: request.redirectURI,
            DialogParameter.display: "touch",
            DialogParameter.sdk: "ios",
            DialogParameter.returnScopes: "true",
            DialogParameter.sdkVersion: Self.sdkVersion,
            DialogParameter.scope: scope.joined(separator: ","),
            DialogParameter.responseType: limited ? Self.limitedResponseType : Self.enabledResponseType,
            DialogParameter.nonce: configuration.nonce,
            DialogParameter.defaultAudience: request.defaultAudience.wireName,
            // No Facebook app to switch to, and no automatic app events.
            DialogParameter.fbAppPresent: "0",
            DialogParameter.ies: "0",
            DialogParameter.clientTime: String((request.now.timeIntervalSince1970 * 1000).rounded()),
            DialogParameter.e2e: JSONValue.object(["init": .double(request.uptime)]).serialized(),
            DialogParameter.state: request.state.parameterValue,
        ]
        if limited {
            params[DialogParameter.trackingPreference] = DialogParameter.limitedLoginTrackingValue
        } else {
            params[DialogParameter.codeChallenge] = configuration.codeVerifier.challenge
            params[DialogParameter.codeChallengeMethod] = "S256"
        }
        if let authType = configuration.authType { params[DialogParameter.authType] = authType.rawValue }
        if let suffix = urlSchemeSuffix { params[DialogParameter.localClientID] = suffix }
        if let nonce = request.userTokenNonce, !nonce.isEmpty { params[DialogParameter.userTokenNonce] = nonce }
        if let page = configuration.messengerPageId, !page.isEmpty { params[DialogParameter.messengerPageID] = page }
        return params.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `{dialogBaseURL}/{graphAPIVersion}/dialog/oauth?…`.
    public func url(for request: Request) -> URL {
        var base = dialogBaseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(
            string: base + "/" + graphAPIVersion + "/" + WirePath.loginDialog + "?"
                + FormEncoding.encode(parameters(for: request)))!
    }
}
