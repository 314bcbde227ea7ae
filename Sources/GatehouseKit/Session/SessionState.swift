import Foundation

/// Where a ``Session`` is in its lifecycle (Facebook's `FBSessionState`).
public enum SessionState: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Exists, no token found (yet).
    case created
    /// A usable cached token was found; opening needs no dialog.
    case createdTokenLoaded
    /// The login dialog is up.
    case createdOpening
    /// Open: Graph calls may be made.
    case open
    /// Open, with a token that gained permissions or was refreshed since opening.
    case openTokenExtended
    /// The login failed or was cancelled. Terminal.
    case closedLoginFailed
    /// Closed by the app. Terminal.
    case closed

    /// `open` or `openTokenExtended`.
    public var isOpen: Bool { self == .open || self == .openTokenExtended }
    /// `closed` or `closedLoginFailed`: a session in these states never opens again.
    public var isClosed: Bool { self == .closed || self == .closedLoginFailed }

    /// Facebook's constant name, e.g. `FBSessionStateOpen`.
    public var description: String {
        switch self {
        case .created: "FBSessionStateCreated"
        case .createdTokenLoaded: "FBSessionStateCreatedTokenLoaded"
        case .createdOpening: "FBSessionStateCreatedOpening"
        case .open: "FBSessionStateOpen"
        case .openTokenExtended: "FBSessionStateOpenTokenExtended"
        case .closedLoginFailed: "FBSessionStateClosedLoginFailed"
        case .closed: "FBSessionStateClosed"
        }
    }
}

/// Something that happened to a session, fed to ``SessionStateMachine``.
public enum SessionEvent: Sendable, Equatable, CaseIterable {
    /// A usable token was found in the cache.
    case tokenLoaded
    /// The cached token went away (someone logged out) before the session opened.
    case tokenCleared
    /// `open(allowLoginUI: false)`: open only from a cached token.
    case openSilently
    /// `open(allowLoginUI: true)`: show the dialog unless a cached token makes it unnecessary.
    case openWithUI
    /// The dialog returned a token (or one arrived from a callback handled elsewhere).
    case loginSucceeded
    case loginFailed
    case loginCancelled
    /// The person left the app while the dialog was up and came back (`handleDidBecomeActive`).
    case loginAbandoned
    /// `requestNew*Permissions` was called.
    case requestPermissions
    /// The dialog granted at least one of the requested permissions.
    case permissionsGranted
    /// None of the requested permissions was granted (declined, cancelled or failed).
    case permissionsRefused
    /// `refresh()` was called.
    case refreshRequested
    /// A refreshed token for the same person arrived.
    case refreshed
    case close
    case closeAndClear
}

/// What the session must do after a transition, in order.
public enum SessionAction: Sendable, Equatable {
    /// Run the login dialog (first login or new permissions).
    case showLoginUI
    /// Cancel the dialog still running.
    case cancelLogin
    /// Ask the refresher for a fresh token.
    case refreshToken
    /// Make the session's (new) token `AccessToken.current`, which writes the token cache.
    case cacheToken
    /// Delete the cached tokens (`AccessToken.current = nil`).
    case clearCache
    /// Tell the state-change handler and the `states` streams.
    case notify(SessionState)
    /// The request is not allowed in this state; nothing changed.
    case reject(SessionError)
}

/// Why a session refused a request.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session is closed; a closed session never reopens. Create a new `Session`.
    case sessionClosed
    case alreadyOpen
    /// A login dialog for this session is already up.
    case loginInProgress
    /// `open(allowLoginUI: false)` found no usable cached token.
    case noCachedToken
    /// Permissions and refreshes need an open session.
    case notOpen
    /// The person cancelled the dialog (or left it).
    case loginCancelled
    /// No ``SessionLoginProviding`` was given and `Session.defaultLoginProvider` is not set.
    case noLoginProvider
    /// No ``SessionTokenRefreshing`` was given and `Session.defaultTokenRefresher` is not set.
    case noTokenRefresher
    /// A read-permission request (or a session's permissions) named a publish permission. Facebook's SDK
    /// raised `FBInvalidOperationException` with this message; ask with ``Session/requestNewPublishPermissions(_:defaultAudience:completion:)``.
    case publishPermissionsInReadRequest
    /// A publish-permission request named a read permission; ask for those with ``Session/requestNewReadPermissions(_:completion:)``.
    case readPermissionsInPublishRequest

    public var description: String {
        switch self {
        case .sessionClosed: "the session is closed and cannot be reopened; create a new Session"
        case .alreadyOpen: "the session is already open"
        case .loginInProgress: "a login for this session is already in progress"
        case .noCachedToken: "there is no usable cached token to open the session without the login dialog"
        case .notOpen: "the session is not open"
        case .loginCancelled: "the login was cancelled"
        case .noLoginProvider: "no login provider: pass one to Session(...) or set Session.defaultLoginProvider"
        case .noTokenRefresher: "no token refresher: pass one to Session(...) or set Session.defaultTokenRefresher"
        case .publishPermissionsInReadRequest:
            "Publish or manage permissions are not permitted to be requested with read permissions."
        case .readPermissionsInPublishRequest:
            "Read permissions are not permitted to be requested with publish or manage permissions."
        }
    }
}
