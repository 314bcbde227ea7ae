import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTestSupport
import Testing

/// Issue 30, item 5: the display-name check against the app's name on a real `gatehouse serve`.
@Suite(.tags(.process)) struct InfoPlistLiveTests {
    @Test func aDisplayNameDifferentFromTheServersIsAWarningNotARefusal() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let environment = SessionKitFixtures.environment(settings: server.settings())
        let token = try await SessionKitFixtures.liveToken(
            server, user: server.users[0], scope: [], environment: environment)
        let reply = try await GraphTransport(environment: environment).send(
            method: "GET", path: "debug_token", parameters: ["input_token": token.tokenString],
            tokenString: token.tokenString)
        guard case .string(let appName)? = reply.json?["data"]?["application"] else {
            Issue.record("no application name"); return
        }
        environment.settings.displayName = "Old Name"
        #expect(
            await InfoPlistCheck.displayNameWarning(token: token, environment: environment)
                == InfoPlistCheck.displayNameWarning(displayName: "Old Name", serverAppName: appName))
        environment.settings.displayName = appName
        #expect(await InfoPlistCheck.displayNameWarning(token: token, environment: environment) == nil)
    }
}
