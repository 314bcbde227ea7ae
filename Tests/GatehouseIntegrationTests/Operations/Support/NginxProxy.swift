import ChildProcesses
import Foundation
import GatehouseTestSupport
import NIOCore
import NIOHTTP1

/// Debian's nginx as a round-robin reverse proxy on a loopback port in front of some Gatehouse nodes.
///
/// Everything it writes (config, pid, logs, temp files) lives in a temporary folder. A node that refuses
/// connections or drops one is marked failed for 10 s and the request goes to the next node
/// (`proxy_next_upstream`), which is what lets requests keep succeeding when a node dies.
final class NginxProxy: @unchecked Sendable {
    private(set) var process: ChildProcess?
    private(set) var port = 0
    let directory: String

    init(upstreamPorts: [Int]) async throws {
        guard let nginx = Shell.which("nginx") else {
            throw Shell.Failure(message: "nginx is not installed: run the suite with ./scripts/test, which installs it")
        }
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        // nginx binds a port picked here; another process can take it first, so a failed bind tries another.
        for _ in 0..<3 {
            port = try FreeTCPPort.find()
            if try await start(nginx, upstreamPorts: upstreamPorts) { return }
        }
        let log = (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? ""
        await stop()
        throw Shell.Failure(message: "nginx did not start: \(log)")
    }

    /// Starts nginx on `port`; false if it exited (a port taken meanwhile) or did not answer within 15 s.
    private func start(_ nginx: String, upstreamPorts: [Int]) async throws -> Bool {
        let servers = upstreamPorts.map { "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=10s;" }.joined(
            separator: "\n")
        // As root nginx would hand its workers to `nobody`, who cannot write into this folder.
        let user = getuid() == 0 ? "user root;" : ""
        let config = """
            \(user)
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log warn;
            events { worker_connections 256; }
            http {
              access_log off;
              client_body_temp_path \(directory)/client_body;
              proxy_temp_path \(directory)/proxy;
              fastcgi_temp_path \(directory)/fastcgi;
              uwsgi_temp_path \(directory)/uwsgi;
              scgi_temp_path \(directory)/scgi;
              upstream gatehouse {
            \(servers)
              }
              server {
                listen 127.0.0.1:\(port);
                location / {
                  proxy_pass http://gatehouse;
                  proxy_http_version 1.1;
                  proxy_set_header Connection "";
                  proxy_set_header Host $http_host;
                  proxy_connect_timeout 2s;
                  proxy_next_upstream error timeout http_502 http_504;
                  proxy_next_upstream_tries 2;
                }
              }
            }
            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try await ChildProcess.start(
            nginx, arguments: ["-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"],
            standardError: .discarded)
        self.process = process
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(15)
        while clock.now < deadline {
            if !process.isRunning { return false }
            if (try? await HTTP.get("http://127.0.0.1:\(port)/healthz", timeout: .seconds(2)))?.status == .ok {
                return true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        await process.kill()
        return false
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops nginx (SIGQUIT for the master, which takes its workers along) and removes its folder.
    func stop() async {
        if let process {
            process.send(signal: SIGQUIT)
            if await process.exitStatus(timeout: .seconds(5)) == nil { await process.kill() }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
