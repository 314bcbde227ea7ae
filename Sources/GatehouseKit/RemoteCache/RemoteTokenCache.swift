import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why the remote token cache refused or failed a request.
public struct RemoteTokenCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's `errorCode` (see `TokenCacheWire.ErrorCode`), or nil for a network or protocol failure.
    public var code: Int?
    public var message: String

    public init(code: Int?, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "RemoteTokenCacheError\(code.map { " \($0)" } ?? ""): \(message)" }
}

/// A token cache kept on the Gatehouse server, so a person who logged in on one device is logged in on the
/// next (the seeds' "Managing your own token cache", step 2).
///
/// The slot is named by `sessionKey`, a secret the app's own backend issued for the person's session (never a
/// guessable id), and unlocked by `sessionProof`, which the backend computes with the app secret
/// (`RemoteTokenCache.sessionProof(sessionKey:appSecret:)`); the device sends the app's `APPID|CLIENT_TOKEN`.
/// Every request is a POST (fetch and clear use `method=GET` / `method=DELETE`) so the secrets stay out of URLs.
///
/// Reads are served from a local copy: `reload()` fills it asynchronously (do that before creating a
/// `Session`); a read before any load fetches synchronously, as the seed's sample does. Writes update the copy
/// at once and are sent in order in the background; `flush()` waits for them and reports the last failure.
public final class RemoteTokenCache: TokenCaching, @unchecked Sendable {
    public let sessionKey: String
    public let sessionProof: String
    public let appID: String
    public let clientToken: String
    public let serverURL: URL
    public let timeout: TimeInterval

    private let urlSession: URLSession
    private let lock = NSLock()
    private var loaded = false
    private var data = RemoteTokenData()
    private var writeError: RemoteTokenCacheError?
    private let writes = DispatchQueue(label: "gatehouse.remote-token-cache.writes")

    /// - Parameters:
    ///   - settings: app id, client token and server URL (defaults to `Settings.shared`).
    public init(
        sessionKey: String, sessionProof: String, settings: Settings = .shared,
        urlSession: URLSession = .gatehouseUncached(), timeout: TimeInterval = 15
    ) throws {
        guard let appID = settings.appID, let clientToken = settings.clientToken else {
            throw CoreError(.invalidArgument, message: "RemoteTokenCache needs Settings.appID and Settings.clientToken")
        }
        guard TokenCacheWire.sessionKeyLength.contains(sessionKey.utf8.count) else {
            throw CoreError(
                .invalidArgument,
                message:
                    "sessionKey must be \(TokenCacheWire.sessionKeyLength.lowerBound)-\(TokenCacheWire.sessionKeyLength.upperBound) characters"
            )
        }
        self.sessionKey = sessionKey
        self.sessionProof = sessionProof
        self.appID = appID
        self.clientToken = clientToken
        self.serverURL = settings.serverURL
        self.urlSession = urlSession
        self.timeout = timeout
    }

    /// For the app's backend: the proof that goes with a session key it issued.
    public static func sessionProof(sessionKey: String, appSecret: String) -> String {
        TokenCacheWire.sessionProof(sessionKey: sessionKey, appSecret: appSecret)
    }

    // MARK: TokenCaching

    public var accessToken: AccessToken? {
        get { loadIfNeeded(); return lock.withLock { data.accessToken } }
        set { write { $0.accessToken = newValue } }
    }

    public var authenticationToken: AuthenticationToken? {
        get { loadIfNeeded(); return lock.withLock { data.authenticationToken } }
        set { write { $0.authenticationToken = newValue } }
    }

    // MARK: Explicit control

    /// Fetches the cached tokens from the server now (nothing cached → both nil).
    public func reload() async throws {
        let request = try makeRequest(method: "GET", tokenInfo: nil)
        let fetched = try Self.interpret(try await urlSession.data(for: request))
        lock.withLock {
            data = fetched; loaded = true
        }
    }

    /// Waits until every write so far has been sent; throws the last write failure, if any.
    public func flush() async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writes.async { continuation.resume() }
        }
        if let error = lock.withLock({ writeError }) { throw error }
    }

    /// Deletes the server's copy and the local one.
    public func clear() {
        write { $0 = RemoteTokenData() }
    }

    // MARK: Internals

    private func loadIfNeeded() {
        guard !lock.withLock({ loaded }) else { return }
        guard let request = try? makeRequest(method: "GET", tokenInfo: nil),
            let fetched = try? Self.interpret(Self.sendSynchronously(request, session: urlSession))
        else { return }
        lock.withLock {
            if !loaded { data = fetched; loaded = true }
        }
    }

    private func write(_ change: (inout RemoteTokenData) -> Void) {
        let snapshot: RemoteTokenData = lock.withLock {
            change(&data)
            loaded = true
            return data
        }
        let request: URLRequest
        do {
            if snapshot.isEmpty {
                request = try makeRequest(method: "DELETE", tokenInfo: nil)
            } else {
                let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
                request = try makeRequest(method: "POST", tokenInfo: json)
            }
        } catch {
            lock.withLock { writeError = RemoteTokenCacheError(code: nil, message: "could not encode the tokens") }
            return
        }
        let session = urlSession
        writes.async { [weak self] in
            let outcome = Result { try Self.interpret(Self.sendSynchronously(request, session: session)) }
            self?.lock.withLock {
                if case .failure(let error) = outcome {
                    self?.writeError =
                        error as? RemoteTokenCacheError ?? RemoteTokenCacheError(code: nil, message: "\(error)")
                } else {
                    self?.writeError = nil
                }
            }
        }
    }

    private func makeRequest(method: String, tokenInfo: String?) throws -> URLRequest {
        var base = serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: "\(base)/\(appID)/token_cache") else {
            throw RemoteTokenCacheError(code: nil, message: "invalid server URL \(base)")
        }
        var params: [(String, String)] = [
            ("access_token", "\(appID)|\(clientToken)"), ("session_key", sessionKey), ("session_proof", sessionProof),
        ]
        if method != "POST" { params.append(("method", method)) }
        if let tokenInfo { params.append(("token_info", tokenInfo)) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormEncoding.encode(params).utf8)
        return request
    }

    /// `{"status":true[,"token_info":"…"]}` or `{"status":false,"errorCode":…,"errorMessage":…}`; "no data" reads as empty.
    static func interpret(_ reply: (Data, URLResponse)) throws -> RemoteTokenData {
        guard case .object(let body)? = try? JSONValue.parse(reply.0), let status = body["status"] else {
            throw RemoteTokenCacheError(code: nil, message: "the server's reply is not the token cache's JSON")
        }
        guard status == .bool(true) || status.stringValue == "true" else {
            let code = body["errorCode"]?.intValue.map(Int.init)
            if code == TokenCacheWire.ErrorCode.noData.rawValue { return RemoteTokenData() }
            throw RemoteTokenCacheError(
                code: code, message: body["errorMessage"]?.stringValue ?? "the token cache refused the request")
        }
        guard let info = body["token_info"]?.stringValue else { return RemoteTokenData() }
        do {
            return try JSONDecoder().decode(RemoteTokenData.self, from: Data(info.utf8))
        } catch {
            throw RemoteTokenCacheError(code: nil, message: "the cached token data could not be read")
        }
    }

    /// Blocks the calling thread (never a cooperative one in practice: writes run on a private queue).
    static func sendSynchronously(_ request: URLRequest, session: URLSession) throws -> (Data, URLResponse) {
        let done = DispatchSemaphore(value: 0)
        let box = ReplyBox()
        let task = session.dataTask(with: request) { data, response, error in
            if let data, let response {
                box.set(.success((data, response)))
            } else {
                box.set(
                    .failure(
                        RemoteTokenCacheError(
                            code: nil,
                            message:
                                "could not reach the token cache: \(error.map { "\($0.localizedDescription)" } ?? "no reply")"
                        )))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        return try box.get()
    }
}

/// What one slot holds: the same two tokens as every other `TokenCaching`.
struct RemoteTokenData: Codable, Sendable {
    var accessToken: AccessToken?
    var authenticationToken: AuthenticationToken?
    var isEmpty: Bool { accessToken == nil && authenticationToken == nil }
}

/// Carries a reply from URLSession's completion handler to the waiting thread.
private final class ReplyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<(Data, URLResponse), any Error> = .failure(
        RemoteTokenCacheError(code: nil, message: "no reply"))
    func set(_ value: Result<(Data, URLResponse), any Error>) { lock.withLock { outcome = value } }
    func get() throws -> (Data, URLResponse) { try lock.withLock { outcome }.get() }
}
