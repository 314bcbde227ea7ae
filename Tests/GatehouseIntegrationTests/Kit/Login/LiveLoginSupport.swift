import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A presenter that plays the person in the live server's dialog with `DialogPlayer` and hands back the
/// redirect, the way the system browser would.
final class DialogPlayerPresenter: LoginDialogPresenting, @unchecked Sendable {
    private let lock = NSLock()
    private let redirectURI: String
    private var _user: LiveServer.SeedUser
    private var _choice = DialogPlayer.Choice()
    private var _responseType: String?
    private var _audience: String?
    private var _skipPublish = false
    private var _social = DialogPlayer.SocialChoice.cancel
    private var browser = DialogPlayer()
    private var _dialogURLs: [URL] = []
    private var _callbacks: [URL] = []

    init(server: LiveServer, user: LiveServer.SeedUser) {
        redirectURI = "fb\(server.appID)://authorize/"
        _user = user
    }

    /// Who logs in next; a different person gets a fresh browser (no shared cookies).
    var user: LiveServer.SeedUser {
        get { lock.withLock { _user } }
        set {
            lock.withLock {
                if newValue.email != _user.email { browser = DialogPlayer() }
                _user = newValue
            }
        }
    }
    /// What the person chooses on the consent page.
    var choice: DialogPlayer.Choice {
        get { lock.withLock { _choice } }
        set { lock.withLock { _choice = newValue } }
    }
    /// Replaces the dialog's `response_type`, to make the server answer with a code.
    var responseType: String? {
        get { lock.withLock { _responseType } }
        set { lock.withLock { _responseType = newValue } }
    }
    /// The audience picked on the publish step (nil: keep the preselected one).
    var audience: String? {
        get { lock.withLock { _audience } }
        set { lock.withLock { _audience = newValue } }
    }
    /// Press Skip on the publish step.
    var skipPublish: Bool {
        get { lock.withLock { _skipPublish } }
        set { lock.withLock { _skipPublish = newValue } }
    }
    /// What the person does in a feed or requests dialog.
    var social: DialogPlayer.SocialChoice {
        get { lock.withLock { _social } }
        set { lock.withLock { _social = newValue } }
    }
    var dialogURLs: [URL] { lock.withLock { _dialogURLs } }
    var callbacks: [URL] { lock.withLock { _callbacks } }

    func prepare() async throws -> String { redirectURI }

    func present(_ url: URL) async throws -> URL? {
        let (user, choice, browser, responseType, audience, skip, social) = lock.withLock {
            (_user, _choice, self.browser, _responseType, _audience, _skipPublish, _social)
        }
        let dialog = responseType.map { LiveLogin.replacing("response_type", with: $0, in: url) } ?? url
        lock.withLock { _dialogURLs.append(dialog) }
        let callback: URL
        if url.path.hasSuffix("/dialog/feed") || url.path.hasSuffix("/dialog/apprequests") {
            callback = try await browser.completeSocial(
                dialog, email: user.email, password: user.password, choice: social)
        } else {
            var choice = choice
            choice.audience = audience
            choice.skipPublish = skip
            callback = try await browser.complete(dialog, email: user.email, password: user.password, choice: choice)
        }
        lock.withLock { _callbacks.append(callback) }
        return callback
    }
}

/// A live server, an environment on it, and a manager whose dialog Alice (the server's first person) completes.
struct LiveLoginRig {
    let server: LiveServer
    let environment: GatehouseKitEnvironment
    let presenter: DialogPlayerPresenter
    let manager: LoginManager

    init() async throws {
        server = try await LiveServer()
        environment = LiveLogin.environment(server)
        presenter = DialogPlayerPresenter(server: server, user: server.users[0])
        manager = LoginManager(presenter: presenter, environment: environment)
    }
}

enum LiveLogin {
    /// An environment on the live server's demo app with an in-memory token cache.
    static func environment(_ server: LiveServer) -> GatehouseKitEnvironment {
        GatehouseKitEnvironment(settings: server.settings(), tokenCache: LoginTestTokenCache())
    }

    /// `url` with one query parameter replaced.
    static func replacing(_ name: String, with value: String, in url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let pairs = (FormEncoding.decode(components.percentEncodedQuery ?? "") ?? []).map {
            $0.0 == name ? ($0.0, value) : $0
        }
        components.percentEncodedQuery = FormEncoding.encode(pairs)
        return components.url!
    }

    /// The user id the server reports for `token` (`me?fields=id`).
    static func meID(_ token: AccessToken, environment: GatehouseKitEnvironment) async throws -> String? {
        let reply = try await GraphTransport(environment: environment).send(
            method: "GET", path: "me", parameters: ["fields": "id"], tokenString: token.tokenString)
        return reply.json?["id"]?.stringValue
    }

    /// `response_type` that makes the server return an authorization code in the query.
    static let codeResponseType = "code,signed_request,graph_domain"
}
