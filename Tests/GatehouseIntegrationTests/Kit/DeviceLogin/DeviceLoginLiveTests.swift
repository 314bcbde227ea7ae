import ChildProcesses
import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// `DeviceLoginManager` against a real `gatehouse serve` (polling every second), with `DialogPlayer` as the
/// person who opens `/device` on their phone.
@Suite(.tags(.process)) struct DeviceLoginLiveTests {
    /// Records the delegate calls and lets the test wait for completion.
    final class Recorder: DeviceLoginManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var started: [DeviceLoginCodeInfo] = []
        private var completed: (DeviceLoginManagerResult?, (any Error)?)?
        var onStart: (@Sendable (DeviceLoginCodeInfo) -> Void)?

        func deviceLoginManager(_ loginManager: DeviceLoginManager, startedWith codeInfo: DeviceLoginCodeInfo) {
            lock.withLock { started.append(codeInfo) }
            onStart?(codeInfo)
        }

        func deviceLoginManager(
            _ loginManager: DeviceLoginManager, completedWith result: DeviceLoginManagerResult?, error: (any Error)?
        ) {
            lock.withLock { completed = (result, error) }
        }

        var startedCodes: [DeviceLoginCodeInfo] { lock.withLock { started } }

        func waitForCompletion() async throws -> (DeviceLoginManagerResult?, (any Error)?) {
            for _ in 0..<1500 {
                if let done = lock.withLock({ completed }) { return done }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw CancellationError()
        }
    }

    /// The person: opens the verification URL, logs in, types the code, and continues or cancels.
    static func person(_ info: DeviceLoginCodeInfo, user: LiveServer.SeedUser, grant: [String]?, cancel: Bool = false)
        async throws
    {
        let browser = DialogPlayer()
        let base = info.verificationURL
        let login = try await browser.get(base)
        _ = try await browser.post(
            URL(string: "/device/signin", relativeTo: base)!,
            form: [
                ("csrf_token", DialogPlayer.hidden("csrf_token", login.html)),
                ("dialog", DialogPlayer.hidden("dialog", login.html)),
                ("email", user.email), ("password", user.password),
            ])
        let consent = try await browser.get(URL(string: "/device?user_code=\(info.loginCode)", relativeTo: base)!)
        guard consent.html.contains("action=\"/device/consent\"") else {
            throw DialogPlayer.PlayError.unexpected("no consent page (\(consent.status))")
        }
        let offered = consent.html.components(separatedBy: "name=\"permission\" value=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.map(String.init)
        }
        var form: [(String, String)] = [
            ("csrf_token", DialogPlayer.hidden("csrf_token", consent.html)),
            ("dialog", DialogPlayer.hidden("dialog", consent.html)),
            ("action", cancel ? "cancel" : "continue"),
        ]
        for p in grant ?? offered { form.append(("permission", p)) }
        let done = try await browser.post(URL(string: "/device/consent", relativeTo: base)!, form: form)
        guard done.status == 200 else { throw DialogPlayer.PlayError.unexpected("consent answered \(done.status)") }
    }

    @Test func aPersonOnAnotherDeviceLogsTheTVIn() async throws {
        let server = try await LiveServer(environment: ["GATEHOUSE_DEVICE_POLL_INTERVAL": "1"])
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let manager = DeviceLoginManager(
            permissions: ["email", "user_friends"], enableSmartLogin: false, environment: environment)
        let recorder = Recorder()
        let alice = server.users[0]
        recorder.onStart = { info in
            Task { try await Self.person(info, user: alice, grant: ["public_profile", "email"]) }
        }
        manager.delegate = recorder
        manager.start()
        let (result, error) = try await recorder.waitForCompletion()
        #expect(error == nil)
        let info = try #require(recorder.startedCodes.first)
        #expect(info.loginCode.count == 8)
        #expect(info.verificationURL.absoluteString == server.baseURL.absoluteString + "/device")
        #expect(info.pollingInterval == 1)
        let token = try #require(result?.accessToken)
        #expect(result?.isCancelled == false)
        #expect(token.permissions == [.publicProfile, .email])
        #expect(token.declinedPermissions == [.userFriends])
        #expect(token.appID == server.appID)
        #expect(environment.currentAccessToken == token)
        #expect(try await LiveLogin.meID(token, environment: environment) == token.userID)
        let lifetime = token.expirationDate.timeIntervalSince(token.refreshDate)
        #expect(lifetime > 59 * 86400)
    }

    @Test func cancellingOnTheConsentPageIsACancelledResult() async throws {
        let server = try await LiveServer(environment: ["GATEHOUSE_DEVICE_POLL_INTERVAL": "1"])
        defer { server.stop() }
        let environment = LiveLogin.environment(server)
        let manager = DeviceLoginManager(permissions: [], enableSmartLogin: true, environment: environment)
        let bob = server.users[1]
        let result = try await manager.login { info in
            Task { try await Self.person(info, user: bob, grant: nil, cancel: true) }
        }
        #expect(result.isCancelled)
        #expect(result.accessToken == nil)
        #expect(environment.currentAccessToken == nil)
    }

    @Test func aBadClientTokenIsAGraphError() async throws {
        let server = try await LiveServer()
        defer { server.stop() }
        let settings = server.settings()
        settings.clientToken = "wrong"
        let manager = DeviceLoginManager(
            permissions: [], enableSmartLogin: false, environment: GatehouseKitEnvironment(settings: settings))
        await #expect(throws: GraphAPIError.self) { _ = try await manager.login { _ in } }
    }
}
