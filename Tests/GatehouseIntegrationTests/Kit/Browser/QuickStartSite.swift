import ChildProcesses
import Foundation
import GatehouseTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `examples/javascript`: Facebook's web quick-start page, with only its SDK URL changed to the live server's, and
/// its Python back end (`server.py`), which reads the SDK's `fbsr_` cookie with facebook-sdk 3.1.0 from PyPI.
///
/// Needs python3 with `facebook-sdk` (installed by scripts/test); fails when it is missing.
struct QuickStartSite {
    let process: ChildProcess
    let url: String
    var origin: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/javascript")
    }

    /// Starts the page's server on a free loopback port and lists its origin among the demo app's JavaScript SDK
    /// domains (the admin API is open in development mode).
    static func start(for server: LiveServer) async throws -> QuickStartSite {
        var problem = ""
        for _ in 0..<3 {
            let port = try FreeTCPPort.find()
            let process = try await ChildProcess.start(
                "python3",
                arguments: [
                    folder.appendingPathComponent("server.py").path, "\(port)", server.baseURL.absoluteString,
                    server.appID, server.appSecret,
                ])
            if await process.waitForOutput(containing: "quick-start page on", timeout: .seconds(30)) != nil {
                let site = QuickStartSite(process: process, url: "http://127.0.0.1:\(port)/")
                let (status, body) = try await adminV1(
                    server, "PATCH", "/apps/\(server.appID)", #"{"js_sdk_domains":["\#(site.origin)"]}"#)
                guard status == 200 else {
                    await process.kill(); throw QuickStartError(description: "PATCH js_sdk_domains: \(status) \(body)")
                }
                return site
            }
            problem = process.output
            await process.kill()
        }
        throw QuickStartError(description: "examples/javascript/server.py did not start: \(problem)")
    }

    func stop() async { await process.kill() }

    struct QuickStartError: Error, CustomStringConvertible { var description: String }

    /// A request to the live server's admin API v1.
    static func adminV1(_ server: LiveServer, _ method: String, _ path: String, _ body: String) async throws -> (
        Int, String
    ) {
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + "/admin/api/v1" + path)!)
        request.httpMethod = method
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
