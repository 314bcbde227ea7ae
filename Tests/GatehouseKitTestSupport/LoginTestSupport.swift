import Foundation
import GatehouseKit
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Token cache for login tests: memory only.
package final class LoginTestTokenCache: TokenCaching, @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?
    package var accessToken: AccessToken? {
        get { lock.withLock { _accessToken } }
        set { lock.withLock { _accessToken = newValue } }
    }
    package var authenticationToken: AuthenticationToken? {
        get { lock.withLock { _authenticationToken } }
        set { lock.withLock { _authenticationToken = newValue } }
    }
}

/// A clock stopped at one instant.
package struct LoginTestClock: SDKClock {
    package var instant: Date
    package init(instant: Date) { self.instant = instant }
    package func now() -> Date { instant }
}

package enum LoginTest {
    package static let appID = "1234567890"
    package static let clientToken = "client-token-abc"
    package static let now = Date(timeIntervalSince1970: 1_750_000_000)

    package static func settings(appID: String? = LoginTest.appID, suffix: String? = nil) -> Settings {
        let settings = Settings()
        settings.appID = appID
        settings.clientToken = clientToken
        settings.appURLSchemeSuffix = suffix
        settings.serverURL = URL(string: "http://127.0.0.1:9")!
        return settings
    }

    package static func environment(
        settings: Settings = LoginTest.settings(), clock: (any SDKClock)? = LoginTestClock(instant: LoginTest.now)
    ) -> GatehouseKitEnvironment {
        GatehouseKitEnvironment(settings: settings, clock: clock ?? SystemSDKClock(), tokenCache: LoginTestTokenCache())
    }

    /// The decoded query parameters of a URL (last value wins).
    package static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in FormEncoding.decode(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
        {
            result[key] = value
        }
        return result
    }

    /// A callback to `redirectURI` carrying `parameters` and echoing the dialog's `state`.
    package static func callback(
        to dialogURL: URL, _ parameters: [(String, String)], inFragment: Bool = true, echoState: Bool = true
    ) -> URL {
        let dialog = query(dialogURL)
        var pairs = parameters
        if echoState, let state = dialog["state"] { pairs.append(("state", state)) }
        let encoded = FormEncoding.encode(pairs)
        return URL(string: dialog["redirect_uri"]! + (inFragment ? "#" : "?") + encoded)!
    }

    /// A `signed_request` whose payload names `userID` (signature not checked by the SDK).
    package static func signedRequest(userID: String) -> String {
        SignedRequest.make(payload: ["user_id": .string(userID), "issued_at": 1_750_000_000], secret: "secret")
    }

    package static func token(
        userID: String = "111", permissions: [String] = ["public_profile", "email"], tokenString: String = "EAA-old"
    ) -> AccessToken {
        AccessToken(
            tokenString: tokenString, permissions: permissions, declinedPermissions: [], expiredPermissions: [],
            appID: appID,
            userID: userID, expirationDate: now.addingTimeInterval(3600), refreshDate: now,
            dataAccessExpirationDate: nil)
    }
}

/// A presenter answering each dialog URL with a callback built by `respond`, optionally after a gate opens.
package final class ScriptedLoginPresenter: LoginDialogPresenting, @unchecked Sendable {
    package let redirectURI: String
    private let lock = NSLock()
    private var _dialogURLs: [URL] = []
    private var _prepareCount = 0
    private let respond: @Sendable (URL) async throws -> URL?
    private let prepareGate: LoginTestGate?

    package init(
        redirectURI: String = "fb\(LoginTest.appID)://authorize/", prepareGate: LoginTestGate? = nil,
        respond: @escaping @Sendable (URL) async throws -> URL?
    ) {
        self.redirectURI = redirectURI
        self.prepareGate = prepareGate
        self.respond = respond
    }

    package var dialogURLs: [URL] { lock.withLock { _dialogURLs } }
    package var prepareCount: Int { lock.withLock { _prepareCount } }

    package func prepare() async throws -> String {
        lock.withLock { _prepareCount += 1 }
        if let prepareGate { await prepareGate.wait() }
        return redirectURI
    }

    package func present(_ url: URL) async throws -> URL? {
        lock.withLock { _dialogURLs.append(url) }
        return try await respond(url)
    }
}

/// A one-shot gate that waiting tasks pass once it is opened. Cancellation does not open it.
package final class LoginTestGate: @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package func open() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume() }
    }

    package func wait() async {
        await withCheckedContinuation { continuation in
            let passes = lock.withLock {
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }
}

/// Records what a test's callback received.
package final class LoginRecorder<Value: Sendable>: @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var _values: [Value] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    package var values: [Value] { lock.withLock { _values } }

    package func record(_ value: Value) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            _values.append(value)
            let count = _values.count
            let ready = waiters.filter { $0.0 <= count }.map(\.1)
            waiters.removeAll { $0.0 <= count }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Waits until at least `count` values arrived.
    package func waitFor(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock {
                if _values.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
