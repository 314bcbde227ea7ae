import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LiveGraphSerialTests {
    @Suite struct LiveCancel {
        @Test func cancelRightAfterStartAgainstTheLiveServer() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let connection = GraphRequestConnection()
            let outcome: (any Error)? = await withCheckedContinuation { continuation in
                connection.add(GraphRequest(graphPath: server.appID)) { _, _, error in
                    continuation.resume(returning: error)
                }
                connection.start()
                connection.cancel()
            }
            #expect((outcome as? URLError)?.code == .cancelled)
            // The reply, if it still arrives, is dropped: no second completion (the continuation would trap).
            try await Task.sleep(for: .milliseconds(300))
        }
    }
}
