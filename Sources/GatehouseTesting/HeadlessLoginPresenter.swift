import Foundation
import GatehouseKit

/// Plays the person in the login dialog for your app's own `LoginManager`, inside a unit test and with no browser:
/// the dialog's pages are fetched from the emulator over HTTP, the login form is filled in, the permissions are
/// ticked (or some left unticked, or Cancel pressed), and the dialog's redirect is handed back to `LoginManager`
/// as the system browser would hand it to the app.
///
/// ```swift
/// let presenter = HeadlessLoginPresenter(emulator: gatehouse, person: gatehouse.users[0], decline: ["user_friends"])
/// let manager = LoginManager(presenter: presenter, environment: gatehouse.kitEnvironment())
/// let result = try await manager.logIn(permissions: ["email", "user_friends"])
/// // result.grantedPermissions == ["public_profile", "email"], result.declinedPermissions == ["user_friends"]
/// ```
///
/// One presenter is one browser: a second login by the same person finds them signed in. Changing ``person``
/// starts a fresh browser.
public final class HeadlessLoginPresenter: LoginDialogPresenting, @unchecked Sendable {
    private let lock = NSLock()
    private let redirectURI: String
    private var _person: TestUser
    private var _decline: [String]
    private var _cancel: Bool
    private var player = DialogPlayer()
    private var _dialogURLs: [URL] = []
    private var _callbacks: [URL] = []

    /// - Parameters:
    ///   - emulator: the server whose dialog is played.
    ///   - person: who logs in (their email and password go into the login form; a person without a password,
    ///     made by ``GatehouseEmulator/createPerson(firstName:lastName:email:password:testUserOf:id:profile:)``
    ///     without one, is picked on the development login page instead).
    ///   - app: the app the `LoginManager` logs in to (its dialog returns to `fb{id}://authorize/`); nil: the demo app.
    ///   - decline: permissions the person leaves unticked on the consent page.
    ///   - cancel: press Cancel in the dialog: the login ends cancelled.
    public convenience init(
        emulator: GatehouseEmulator, person: TestUser, app: TestApp? = nil, decline: [String] = [], cancel: Bool = false
    ) {
        self.init(appID: (app ?? emulator.app).id, person: person, decline: decline, cancel: cancel)
    }

    /// A presenter for any Gatehouse server's dialog (the dialog URL `LoginManager` opens names the server).
    ///
    /// - Parameter appID: the app the `LoginManager` logs in to: its dialog returns to `fb{appID}://authorize/`.
    public init(appID: String, person: TestUser, decline: [String] = [], cancel: Bool = false) {
        redirectURI = "fb\(appID)://authorize/"
        _person = person
        _decline = decline
        _cancel = cancel
    }

    /// Who logs in next; a different person gets a fresh browser (no shared cookies).
    public var person: TestUser {
        get { lock.withLock { _person } }
        set {
            lock.withLock {
                if newValue != _person { player = DialogPlayer() }
                _person = newValue
            }
        }
    }

    /// Permissions the person leaves unticked in the next dialogs.
    public var decline: [String] {
        get { lock.withLock { _decline } }
        set { lock.withLock { _decline = newValue } }
    }

    /// Whether the person presses Cancel in the next dialogs.
    public var cancel: Bool {
        get { lock.withLock { _cancel } }
        set { lock.withLock { _cancel = newValue } }
    }

    /// Every dialog URL `LoginManager` opened, oldest first.
    public var dialogURLs: [URL] { lock.withLock { _dialogURLs } }
    /// Every redirect handed back to `LoginManager`, oldest first.
    public var callbacks: [URL] { lock.withLock { _callbacks } }

    /// `fb{appID}://authorize/`, where a mobile app's dialog returns.
    public func prepare() async throws -> String { redirectURI }

    /// Plays the dialog at `url` and returns its redirect.
    /// - Throws: when a page is not what the dialog shows (a wrong password leaves the login form up).
    public func present(_ url: URL) async throws -> URL? {
        let (person, choice, player) = lock.withLock {
            _dialogURLs.append(url)
            return (_person, DialogPlayer.Choice(decline: _decline, cancel: _cancel), self.player)
        }
        let callback = try await player.complete(
            url, email: person.email, password: person.password, userID: person.id, choice: choice)
        lock.withLock { _callbacks.append(callback) }
        return callback
    }
}

extension GatehouseEmulator {
    /// A GatehouseKit environment pointing at this emulator and `app` (nil: the demo app), with tokens kept in
    /// memory: give it to your `LoginManager`, `GraphRequest`s and `Profile` loads under test.
    public func kitEnvironment(app: TestApp? = nil) -> GatehouseKitEnvironment {
        let app = app ?? self.app
        let settings = Settings()
        settings.appID = app.id
        settings.clientToken = app.clientToken
        settings.displayName = app.name
        settings.serverURL = baseURL
        return GatehouseKitEnvironment(settings: settings)
    }
}
