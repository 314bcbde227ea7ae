import Foundation

/// Debian's nginx as a round-robin reverse proxy on a loopback port in front of some Gatehouse nodes.
///
/// Everything it writes (config, pid, logs, temp files) lives in a temporary folder. A node that refuses
/// connections or drops one is marked failed for 10 s and the request goes to the next node
/// (`proxy_next_upstream`), which is what lets requests keep succeeding when a node dies.
final class NginxProxy: @unchecked Sendable {
    let process = Process()
    let port: Int
    let directory: String

    init(upstreamPorts: [Int]) async throws {
        guard let nginx = Shell.which("nginx") else {
            throw Shell.Failure(message: "nginx is not installed: run the suite with ./scripts/test, which installs it")
        }
        port = try FreeTCPPort.find()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let servers = upstreamPorts.map { "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=10s;" }.joined(separator: "\n")
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
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if ChildExit.waitBlocking(process, timeout: 0) != nil { break }
            if (try? await HTTP.get("http://127.0.0.1:\(port)/healthz", timeout: .seconds(2)))?.status == .ok { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? ""
        await stop()
        throw Shell.Failure(message: "nginx did not start: \(log)")
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops nginx (SIGQUIT for the master, which takes its workers along) and removes its folder.
    func stop() async {
        kill(process.processIdentifier, SIGQUIT)
        if await ChildExit.wait(process, timeout: 5) == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = await ChildExit.wait(process, timeout: 5)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
