import Foundation
import GatehouseKit
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

/// A clock tests move by hand.
package final class GraphTestClock: SDKClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    package init(_ date: Date) { current = date }
    package func now() -> Date { lock.withLock { current } }
    package func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

package enum GraphTestSupport {
    /// Installs `environment` as `GatehouseKitEnvironment.current`, with no login attempter, and returns it.
    @discardableResult
    package static func install(_ environment: GatehouseKitEnvironment) -> GatehouseKitEnvironment {
        GatehouseKitEnvironment.current = environment
        ErrorRecovery.loginAttempter = nil
        return environment
    }

    /// Runs a request through `start(completion:)` and waits for its completion.
    package static func complete(_ request: GraphRequest) async -> (result: Any?, error: (any Error)?) {
        await withCheckedContinuation { continuation in
            request.start { _, result, error in
                continuation.resume(returning: (GraphUncheckedBox(result).value, error))
            }
        }
    }

    /// Starts a connection whose completions (in order) append to a list, and waits for all of them.
    package static func run(_ connection: GraphRequestConnection, _ requests: [(GraphRequest, [String: Any]?)]) async
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

    package struct Outcome: Sendable {
        package var result: JSONValue?
        package var rawResult: GraphUncheckedBox<Any?>
        package var error: (any Error)?
    }

    package final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Outcome] = []
        package func append(_ outcome: Outcome) -> Int {
            lock.withLock {
                items.append(outcome); return items.count
            }
        }
        package var outcomes: [Outcome] { lock.withLock { items } }
    }
}

/// Moves a non-Sendable value out of a completion in tests.
package struct GraphUncheckedBox<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}

/// A TCP port that accepts connections (the kernel completes the handshake) but never answers.
package final class GraphSilentListener: @unchecked Sendable {
    package let descriptor: Int32
    package let port: UInt16

    package init() throws {
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

    package var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit { close(descriptor) }

    enum ListenerError: Error { case failed }
}

/// Records delegate calls in order.
@MainActor package final class GraphRecordingDelegate: GraphRequestConnectionDelegate {
    package var events: [String] = []
    package var failure: (any Error)?
    package nonisolated init() {}
    package func requestConnectionWillBeginLoading(_ connection: any GraphRequestConnecting) {
        events.append("willBegin")
    }
    package func requestConnectionDidFinishLoading(_ connection: any GraphRequestConnecting) {
        events.append("didFinish")
    }
    package func requestConnection(_ connection: any GraphRequestConnecting, didFailWithError error: any Error) {
        events.append("didFail")
        failure = error
    }
}
