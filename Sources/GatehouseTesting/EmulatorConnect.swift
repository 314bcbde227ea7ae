import Foundation
import GatehouseProtocol

extension GatehouseEmulator {
    /// An emulator for a Gatehouse server that is already running: `gatehouse serve` in a container, on another
    /// host, or another test process's. Every helper works on it as on ``start(_:)``'s, through the server's
    /// admin API; ``stop()`` leaves the server running.
    ///
    /// ```swift
    /// let gatehouse = try await GatehouseEmulator.connect(
    ///     to: URL(string: "http://gatehouse.test:8080")!, adminToken: ProcessInfo.processInfo.environment["GATEHOUSE_ADMIN_TOKEN"])
    /// try await gatehouse.reset(to: .seed)
    /// ```
    ///
    /// - Parameters:
    ///   - url: the server's root (what it prints as its base URL).
    ///   - adminToken: an admin token (`gatehouse admin token create --name ci`), sent as `Authorization: Bearer`;
    ///     nil for a development-mode server on loopback, whose admin API is open.
    ///   - requireSeed: when the server has the development seed (the "Gatehouse Demo" app, Alice, Bob and Carol),
    ///     ``app`` and ``users`` name them. When it has not, true throws ``EmulatorError/notSeeded``; false
    ///     (the default) connects anyway, ``reset(to:)`` with `.seed` then makes them.
    /// - Throws: ``GatehouseAdminError`` when the server refuses the token (401, 403) or does not answer the API.
    public static func connect(to url: URL, adminToken: String?, requireSeed: Bool = false) async throws
        -> GatehouseEmulator
    {
        let admin = AdminConnection(baseURL: url, adminToken: adminToken)
        let seed: (app: TestApp, users: [TestUser])
        do {
            seed = try await findSeed(admin)
        } catch EmulatorError.notSeeded where !requireSeed {
            seed = (TestApp(id: "", name: "", secret: "", clientToken: "", redirectURIs: []), [])
        }
        let emulator = GatehouseEmulator(baseURL: url, admin: admin, seed: seed, local: nil)
        _ = try? await emulator.serverTime()
        return emulator
    }
}
