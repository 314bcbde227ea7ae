import Hummingbird
import HTTPTypes
// `@testable` only for `TestResponse`'s memberwise initialiser, which HummingbirdTesting keeps internal.
@testable import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle

/// How a test reaches the application: in-process through the router, or over a real socket.
enum TestServerMode: Sendable {
    case router
    /// A real server on a free loopback port, reached through a client whose read timeout is five minutes.
    ///
    /// HummingbirdTesting's own `.live` client gives up after a fixed 20 s. Swift Testing starts every test at
    /// once, so on two cores under the full suite's load one request in many thousands waited longer than that
    /// and failed a CI run with `.readTimeout` while the server was merely busy. A slow answer is not what these
    /// tests check; a hang still fails, after five minutes.
    case live
}

/// A `TestClientProtocol` over HummingbirdTesting's `TestClient`, with a patient read timeout.
struct PatientLiveClient: TestClientProtocol {
    static let readTimeout: Duration = .seconds(300)
    let client: TestClient
    let port: Int?

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> TestResponse
    {
        var headers = headers
        headers[.connection] = "keep-alive"
        let response = try await client.execute(
            TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
        return TestResponse(
            head: response.head, body: response.body ?? ByteBuffer(), trailerHeaders: response.trailerHeaders)
    }

    /// Starts `makeApplication`'s server, runs `body` against it, then shuts both down, whether `body` threw or not.
    static func run<App: ApplicationProtocol>(
        _ makeApplication: (@escaping @Sendable (any Channel) async -> Void) throws -> App,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let (ports, announce) = AsyncStream<Int>.makeStream()
        let application = try makeApplication { channel in
            announce.yield(channel.localAddress?.port ?? 0)
            announce.finish()
        }
        let quiet = Logger(label: "patient-live") { _ in SwiftLogNoOpLogHandler() }
        let services = ServiceGroup(configuration: .init(services: [application], logger: quiet))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port != 0 else {
                await services.triggerGracefulShutdown()
                throw TestClient.Error.connectionNotOpen
            }
            let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: readTimeout))
            client.connect()
            do {
                try await body(PatientLiveClient(client: client, port: port))
            } catch {
                try? await client.shutdown()
                await services.triggerGracefulShutdown()
                throw error
            }
            try await client.shutdown()
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}
