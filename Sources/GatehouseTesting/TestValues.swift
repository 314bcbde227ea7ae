import Foundation
import GatehouseProtocol

/// An app on the emulator: the demo app, or one made with
/// ``GatehouseEmulator/createApp(name:redirectURIs:approvedPermissions:requirePKCE:requireAppSecret:id:secret:)``.
public struct TestApp: Sendable, Equatable {
    public let id: String
    public let name: String
    public let secret: String
    /// For `APPID|CLIENT_TOKEN` calls, as the mobile SDKs make them.
    public let clientToken: String
    /// Every registered redirect URI, in the order registered.
    public let redirectURIs: [String]
    /// The first registered redirect URI, for code and token flows ("" when the app registered none).
    public var redirectURI: String { redirectURIs.first ?? "" }
    /// `fb{id}://authorize/`: where a mobile app's dialog returns; every app may use it.
    public var appSchemeRedirectURI: String { "fb\(id)://authorize/" }

    /// Reads an app object of the admin API.
    init(_ json: JSONValue?) throws {
        guard let id = json?["id"]?.stringValue else {
            throw GatehouseEmulator.EmulatorError.unexpectedAnswer("an app without an id")
        }
        self.init(
            id: id, name: json?["name"]?.stringValue ?? "", secret: json?["secret"]?.stringValue ?? "",
            clientToken: json?["client_token"]?.stringValue ?? "", redirectURIs: json?["redirect_uris"]?.strings ?? [])
    }

    init(id: String, name: String, secret: String, clientToken: String, redirectURIs: [String]) {
        self.id = id
        self.name = name
        self.secret = secret
        self.clientToken = clientToken
        self.redirectURIs = redirectURIs
    }
}

/// A person on the emulator: a seed user, or one made with
/// ``GatehouseEmulator/createPerson(firstName:lastName:email:password:testUserOf:id:profile:)``.
public struct TestUser: Sendable, Equatable {
    /// The global user id (what the emulator's own tools take); apps see ``TestLogin/userID`` instead.
    public let id: String
    public let name: String
    public let email: String
    /// Their password on the emulator's login page; empty for a person made without one on an emulator (they are
    /// picked on the login page instead: ``HeadlessLoginPresenter`` does it).
    public let password: String

    public init(id: String, name: String, email: String, password: String) {
        self.id = id
        self.name = name
        self.email = email
        self.password = password
    }
}

/// What ``GatehouseEmulator/logIn(_:to:permissions:declined:)`` returns: what an app holds after a login.
public struct TestLogin: Sendable, Equatable {
    public let accessToken: String
    /// The person's app-scoped id: the `id` the app sees in `/me` and in `AccessToken.userID`.
    public let userID: String
    public let expiresAt: Date?
    public let grantedPermissions: [String]
    public let declinedPermissions: [String]
}

/// What a person granted and declined to an app (``GatehouseEmulator/grant(_:declined:to:by:)``).
public struct TestGrant: Sendable, Equatable {
    /// Granted permissions; `public_profile` first.
    public let granted: [String]
    public let declined: [String]
    /// When the app's access to the person's data lapses (90 days after the last login).
    public let dataAccessExpiresAt: Date?
}

/// A user access token made by ``GatehouseEmulator/mintToken(for:app:scopes:expiresIn:)``.
public struct MintedToken: Sendable, Equatable {
    /// The token, as an app sends it (`access_token=`).
    public let accessToken: String
    /// The token's id on the server (never the token itself): what ``GatehouseEmulator/revoke(_:)`` takes.
    public let id: String
    public let expiresAt: Date?
    /// The permissions the token carries (the person's grant to the app).
    public let scopes: [String]
}
