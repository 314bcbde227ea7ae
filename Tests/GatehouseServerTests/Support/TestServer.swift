// The fixture itself is `GatehouseTestSupport`'s `TestServer` (the integration target uses it too); re-exported so
// that every suite here reaches it, and the support target's other fixtures, without an import of its own.
@_exported import GatehouseTestSupport
import Foundation
import GatehouseCore
import GatehouseProtocol
import GatehouseServer
import Hummingbird
import HummingbirdTesting

extension TestServer {
    /// Runs `body` against the application in-process (`.router`) or over a real socket (`.live`), then
    /// closes the database and removes the data directory, whether `body` passed or failed.
    func run(
        _ mode: TestServerMode = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let pages = try await PageRenderer.load(devMode: services.configuration.isDevelopment)
        let router = GatehouseApp.router(services: services, pages: pages)
        let serverBuilder = try GatehouseApp.serverBuilder(services.configuration)
        let logger = services.logger
        do {
            switch mode {
            case .router:
                let application = Application(
                    router: router, server: serverBuilder,
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
                try await application.test(.router, body)
            case .live:
                try await PatientLiveClient.run(
                    { onRunning in
                        Application(
                            router: router, server: serverBuilder,
                            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                            onServerRunning: onRunning, logger: logger)
                    }, body)
            }
        } catch {
            // Close the database even when the test fails, so the failure is reported rather than
            // sqlite-nio's debug assertion about an unclosed connection ending the whole run.
            try? await services.storage.shutdown()
            scratch.remove()
            throw error
        }
        try await close()
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: JSONValue { (try? JSONValue.parse(Data(text.utf8))) ?? .null }
    var location: String? { headers[.location] }
}
