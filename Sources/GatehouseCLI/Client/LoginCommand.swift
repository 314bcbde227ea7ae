import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit
import GatehouseKitLoopback
import GatehouseProtocol

/// `gatehouse login`: logs a person in through their browser (RFC 8252 loopback redirect).
struct LoginCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in through the browser and keep the token for the other commands.",
        discussion: "Exit status: 0 logged in, 1 failed, 2 cancelled, 3 server unreachable.")

    @Option(help: "Comma-separated permissions to ask for, e.g. email,user_friends.") var permissions: String =
        GatehouseProtocol.Permission.publicProfile
    @Option(name: .customLong("auth-type"), help: "rerequest (ask again for declined permissions) or reauthorize.")
    var authType: String?
    @Flag(name: .customLong("no-browser"), help: "Only print the dialog URL; open it yourself.") var noBrowser = false
    @Flag(help: "Limited Login: an id_token and no access token.") var limited = false
    @Option(help: "The nonce for a Limited Login (default: random).") var nonce: String?
    @Option(help: "Seconds to wait for the browser (default 300).") var timeout: Int = 300
    @Option(help: "Who sees posts made with publish permissions: friends (default), only_me or everyone.") var audience:
        String = "friends"
    @Flag(help: "Device login: print a code and a URL to open in any browser (on another device), then wait.")
    var device = false
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        let requested = scopeList(permissions)
        if device { return try await deviceLogin(requested, environment: environment) }
        var auth: LoginAuthType?
        switch authType {
        case nil: auth = .rerequest
        case "rerequest": auth = .rerequest
        case "reauthorize": auth = .reauthorize
        case let other?: throw exitWith(ClientExit.failed, "--auth-type must be rerequest or reauthorize, not \(other)")
        }
        guard
            let configuration = LoginConfiguration(
                permissions: requested, tracking: limited ? .limited : .enabled, nonce: nonce ?? UUID().uuidString,
                messengerPageId: nil, authType: auth, appSwitch: .enabled, codeVerifier: CodeVerifier())
        else {
            throw exitWith(
                ClientExit.failed,
                "invalid login request: permission names are [a-z_] only"
                    + "\(limited ? " and must be allowed in Limited Login" : "")\(nonce != nil ? ", and the nonce must have no spaces" : "")"
            )
        }
        let browser: any BrowserOpening = noBrowser ? PrintOnlyBrowser() : SystemBrowserOpener()
        let presenter = LoopbackLoginPresenter(browser: browser, timeout: .seconds(timeout))
        let defaultAudience: DefaultAudience
        switch audience {
        case "friends": defaultAudience = .friends
        case "only_me": defaultAudience = .onlyMe
        case "everyone": defaultAudience = .everyone
        default: throw exitWith(ClientExit.failed, "--audience must be friends, only_me or everyone, not \(audience)")
        }
        let manager = LoginManager(defaultAudience: defaultAudience, presenter: presenter, environment: environment)
        let result = await manager.logIn(configuration: configuration)
        switch result {
        case .cancelled:
            throw exitWith(ClientExit.cancelled, "login cancelled: nothing was shared")
        case .failed(let error):
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        case .success(let granted, let declined, let token):
            try await report(granted: granted, declined: declined, token: token)
        }
    }

    /// `--device`: Facebook Login for Devices through the SDK's `DeviceLoginManager`.
    private func deviceLogin(_ requested: [String], environment: GatehouseKitEnvironment) async throws {
        let manager = DeviceLoginManager(permissions: requested, enableSmartLogin: false, environment: environment)
        let result: DeviceLoginManagerResult
        do {
            result = try await manager.login { info in
                // Written straight to the handle so a script reading a pipe sees it at once.
                FileHandle.standardOutput.write(
                    Data(
                        """
                        To log in, open \(info.verificationURL.absoluteString) in a browser on any device and enter the code:

                            \(info.loginCode)

                        Waiting (the code expires in \(max(0, Int(info.expirationDate.timeIntervalSince(environment.clock.now())))) seconds)...

                        """.utf8))
            }
        } catch {
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        }
        guard let token = result.accessToken, !result.isCancelled else {
            throw exitWith(ClientExit.cancelled, "device login cancelled or the code expired: nothing was shared")
        }
        let requestedSet = Set(requested.map { GatehouseKit.Permission($0) })
        try await report(
            granted: token.permissions, declined: token.declinedPermissions.intersection(requestedSet), token: token)
    }

    private func report(
        granted: Set<GatehouseKit.Permission>, declined: Set<GatehouseKit.Permission>, token: AccessToken?
    ) async throws {
        let grantedNames = granted.map(\.name).sorted(), declinedNames = declined.map(\.name).sorted()
        if let token {
            let me = try? await graphJSON("me", parameters: ["fields": "id,name"])
            let name = me?["name"]?.stringValue ?? token.userID
            if client.json {
                try printJSON(
                    LoginJSON(
                        user_id: token.userID, name: name, granted: grantedNames, declined: declinedNames,
                        expires_at: token.expirationDate, limited: false, claims: nil))
                return
            }
            print("Logged in as \(name) (user id \(token.userID)).")
        } else if let idToken = AuthenticationToken.current {
            let claims = IDTokenText.claims(of: idToken.tokenString)
            if client.json {
                try printJSON(
                    LoginJSON(
                        user_id: claims?["sub"]?.stringValue ?? "", name: claims?["name"]?.stringValue ?? "",
                        granted: grantedNames, declined: declinedNames, expires_at: nil, limited: true,
                        claims: claims.map { AnyJSON($0) }))
                return
            }
            print(
                "Logged in with Limited Login as \(claims?["name"]?.stringValue ?? "?") (sub "
                    + "\(claims?["sub"]?.stringValue ?? "?")). No access token was issued."
            )
            if let claims { print("Verified id_token claims:\n" + prettyJSON(claims)) }
        }
        print("Granted: \(grantedNames.isEmpty ? "(none)" : grantedNames.joined(separator: ", "))")
        print("Declined: \(declinedNames.isEmpty ? "(none)" : declinedNames.joined(separator: ", "))")
    }
}

/// `--no-browser`: never opens anything; the presenter prints the URL.
struct PrintOnlyBrowser: BrowserOpening {
    func open(_ url: URL) async -> Bool { false }
}

struct LoginJSON: Encodable {
    var user_id: String
    var name: String
    var granted: [String]
    var declined: [String]
    var expires_at: Date?
    var limited: Bool
    var claims: AnyJSON?
}

/// Encodes a `JSONValue` inside `Encodable` output.
struct AnyJSON: Encodable {
    let value: JSONValue
    init(_ value: JSONValue) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// Reads an id_token's payload for display. Verification is the SDK's job; this only shows what it carries.
enum IDTokenText {
    static func claims(of token: String) -> JSONValue? {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONValue.parse(data)
    }
}

/// `email,user_friends` or `email user_friends`.
func scopeList(_ text: String) -> [String] {
    text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
    }
}
