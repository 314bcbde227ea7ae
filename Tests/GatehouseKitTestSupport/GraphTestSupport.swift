import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tests that replace `GatehouseKitEnvironment.current` or `ErrorRecovery.loginAttempter` (process-wide
/// state) live in suites nested in this one, so they never run at the same time.
@Suite(.serialized, .tags(.process)) struct GraphSerialTests {}

/// A clock tests move by hand.
final class GraphTestClock: SDKClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ date: Date) { current = date }
    func now() -> Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

enum GraphTestSupport {
    /// Installs an environment pointing at `server`'s demo app and returns it.
    @discardableResult
    static func install(_ server: LiveServer, clock: any SDKClock = SystemSDKClock()) -> GatehouseKitEnvironment {
        let environment = GatehouseKitEnvironment(settings: server.settings(), clock: clock)
        GatehouseKitEnvironment.current = environment
        ErrorRecovery.loginAttempter = nil
        return environment
    }

    /// Logs `server.users[user]` in through the real dialog (`response_type=token`, redirect to the app
    /// scheme) and builds the `AccessToken` the SDK would.
    static func logIn(
        _ server: LiveServer, user: Int = 0, scope: String = "email,user_friends",
        extra: [(String, String)] = [], choice: DialogBrowser.Choice = .grant(nil)
    ) async throws -> AccessToken {
        let query = FormEncoding.encode(
            [
                ("client_id", server.appID), ("redirect_uri", "fb\(server.appID)://authorize/"),
                ("response_type", "token"),
                ("scope", scope), ("state", "x"), ("return_scopes", "true"),
            ] + extra)
        let url = URL(string: server.baseURL.absoluteString + "/v21.0/dialog/oauth?" + query)!
        let person = server.users[user]
        let redirect = try await DialogBrowser().complete(
            url, email: person.email, password: person.password, choice: choice)
        let callback = try #require(LoginCallback(url: redirect))
        let tokenString = try #require(callback.accessToken)
        let now = GatehouseKitEnvironment.current.clock.now()
        // The dialog's redirect has no user id; the app-scoped id comes from `me`.
        let me = try await GraphRequest(
            graphPath: "me", parameters: ["fields": "id"], tokenString: tokenString, version: nil,
            httpMethod: .get
        ).startJSON()
        let userID = try #require(me["id"]?.stringValue)
        return AccessToken(
            tokenString: tokenString, permissions: callback.grantedScopes ?? [],
            declinedPermissions: callback.deniedScopes ?? [],
            expiredPermissions: [], appID: server.appID, userID: userID,
            expirationDate: callback.expiresAt ?? callback.expiresIn.map { now.addingTimeInterval($0) },
            refreshDate: now, dataAccessExpirationDate: callback.dataAccessExpirationTime)
    }

    /// Runs a request through `start(completion:)` and waits for its completion.
    static func complete(_ request: GraphRequest) async -> (result: Any?, error: (any Error)?) {
        await withCheckedContinuation { continuation in
            request.start { _, result, error in
                continuation.resume(returning: (GraphUncheckedBox(result).value, error))
            }
        }
    }

    /// Starts a connection whose completions (in order) append to a list, and waits for all of them.
    static func run(_ connection: GraphRequestConnection, _ requests: [(GraphRequest, [String: Any]?)]) async
        -> [Outcome]
    {
        let recorder = Recorder()
        let total = requests.count
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for (request, parameters) in requests {
                let completion: GraphRequestCompletion = { _, result, error in
                    if recorder.append(
                        Outcome(
                            result: result.flatMap { JSONValue(foundationObject: $0) },
                            rawResult: GraphUncheckedBox(result), error: error)) == total
                    {
                        continuation.resume()
                    }
                }
                if let parameters {
                    connection.add(request, parameters: parameters, completion: completion)
                } else {
                    connection.add(request, completion: completion)
                }
            }
            connection.start()
        }
        return recorder.outcomes
    }

    struct Outcome: Sendable {
        var result: JSONValue?
        var rawResult: GraphUncheckedBox<Any?>
        var error: (any Error)?
    }

    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Outcome] = []
        func append(_ outcome: Outcome) -> Int {
            lock.withLock {
                items.append(outcome); return items.count
            }
        }
        var outcomes: [Outcome] { lock.withLock { items } }
    }
}

/// Moves a non-Sendable value out of a completion in tests.
struct GraphUncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A TCP port that accepts connections (the kernel completes the handshake) but never answers.
final class GraphSilentListener: @unchecked Sendable {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw ListenerError.failed
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            close(descriptor)
            throw ListenerError.failed
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit { close(descriptor) }

    enum ListenerError: Error { case failed }
}
