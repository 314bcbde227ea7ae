import Foundation
@testable import GatehouseKit
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Token cache for login tests: memory only.
final class LoginTestTokenCache: TokenCaching, @unchecked Sendable {
    private let lock = NSLock()
    private var _accessToken: AccessToken?
    private var _authenticationToken: AuthenticationToken?
    var accessToken: AccessToken? {
        get { lock.withLock { _accessToken } }
        set { lock.withLock { _accessToken = newValue } }
    }
    var authenticationToken: AuthenticationToken? {
        get { lock.withLock { _authenticationToken } }
        set { lock.withLock { _authenticationToken = newValue } }
    }
}

/// A clock stopped at one instant.
struct LoginTestClock: SDKClock {
    var instant: Date
    func now() -> Date { instant }
}

enum LoginTest {
    static let appID = "1234567890"
    static let clientToken = "client-token-abc"
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func settings(appID: String? = LoginTest.appID, suffix: String? = nil) -> Settings {
        let settings = Settings()
        settings.appID = appID
        settings.clientToken = clientToken
        settings.appURLSchemeSuffix = suffix
        settings.serverURL = URL(string: "http://127.0.0.1:9")!
        return settings
    }

    static func environment(
        settings: Settings = LoginTest.settings(), clock: (any SDKClock)? = LoginTestClock(instant: LoginTest.now)
    ) -> GatehouseKitEnvironment {
        GatehouseKitEnvironment(settings: settings, clock: clock ?? SystemSDKClock(), tokenCache: LoginTestTokenCache())
    }

    /// The decoded query parameters of a URL (last value wins).
    static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in FormEncoding.decode(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
        {
            result[key] = value
        }
        return result
    }

    /// A callback to `redirectURI` carrying `parameters` and echoing the dialog's `state`.
    static func callback(
        to dialogURL: URL, _ parameters: [(String, String)], inFragment: Bool = true, echoState: Bool = true
    ) -> URL {
        let dialog = query(dialogURL)
        var pairs = parameters
        if echoState, let state = dialog["state"] { pairs.append(("state", state)) }
        let encoded = FormEncoding.encode(pairs)
        return URL(string: dialog["redirect_uri"]! + (inFragment ? "#" : "?") + encoded)!
    }

    /// A `signed_request` whose payload names `userID` (signature not checked by the SDK).
    static func signedRequest(userID: String) -> String {
        SignedRequest.make(payload: ["user_id": .string(userID), "issued_at": 1_750_000_000], secret: "secret")
    }

    static func token(
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
final class ScriptedLoginPresenter: LoginDialogPresenting, @unchecked Sendable {
    let redirectURI: String
    private let lock = NSLock()
    private var _dialogURLs: [URL] = []
    private var _prepareCount = 0
    private let respond: @Sendable (URL) async throws -> URL?
    private let prepareGate: LoginTestGate?

    init(
        redirectURI: String = "fb\(LoginTest.appID)://authorize/", prepareGate: LoginTestGate? = nil,
        respond: @escaping @Sendable (URL) async throws -> URL?
    ) {
        self.redirectURI = redirectURI
        self.prepareGate = prepareGate
        self.respond = respond
    }

    var dialogURLs: [URL] { lock.withLock { _dialogURLs } }
    var prepareCount: Int { lock.withLock { _prepareCount } }

    func prepare() async throws -> String {
        lock.withLock { _prepareCount += 1 }
        if let prepareGate { await prepareGate.wait() }
        return redirectURI
    }

    func present(_ url: URL) async throws -> URL? {
        lock.withLock { _dialogURLs.append(url) }
        return try await respond(url)
    }
}

/// A one-shot gate that waiting tasks pass once it is opened. Cancellation does not open it.
final class LoginTestGate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume() }
    }

    func wait() async {
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
final class LoginRecorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Value] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    var values: [Value] { lock.withLock { _values } }

    func record(_ value: Value) {
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
    func waitFor(_ count: Int) async {
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

/// A Graph client answering by path, recording each call.
final class FakeLoginGraph: LoginGraphClient, @unchecked Sendable {
    struct Call: Equatable { let path: String; let parameters: [String: String]; let tokenString: String? }
    private let lock = NSLock()
    private var _calls: [Call] = []
    private let replies: [String: (Int, JSONValue)]

    init(_ replies: [String: (Int, JSONValue)]) { self.replies = replies }

    var calls: [Call] { lock.withLock { _calls } }

    func get(_ path: String, parameters: [String: String], tokenString: String?) async throws -> GraphHTTPResponse {
        lock.withLock { _calls.append(Call(path: path, parameters: parameters, tokenString: tokenString)) }
        let (status, json) = replies[path] ?? (404, ["error": ["message": "no fake reply", "code": 100]])
        return GraphHTTPResponse(statusCode: status, headers: [:], json: json, data: json.serializedData())
    }
}
