import ChildProcesses
import Foundation
import Testing

/// A throwaway PostgreSQL cluster of a test's own (via `scripts/postgres-cluster`), for tests that stop and
/// start the database and must not disturb the shared cluster other tests use.
final class OwnPostgresCluster: @unchecked Sendable {
    let directory: String
    let url: String

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster").path
    }

    init() async throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-pg-\(UUID().uuidString)").path
        let output: (status: Int32, text: String)
        do {
            output = try await Shell.run(Self.script, ["create", directory])
        } catch {
            await Self.destroy(directory)
            throw error
        }
        guard output.status == 0,
            let line = output.text.split(separator: "\n").last(where: { $0.hasPrefix("postgres://") })
        else {
            // A half-made cluster (initdb done, start failed) would otherwise keep its folder, or a server.
            await Self.destroy(directory)
            throw Shell.Failure(message: "could not create a PostgreSQL cluster: \(output.text)")
        }
        url = String(line)
    }

    func stop() async throws { try await Shell.check(Self.script, ["stop", directory]) }
    func start() async throws { try await Shell.check(Self.script, ["start", directory]) }
    /// Stops the cluster if it runs and deletes its folder (the script does both, as the cluster's owner).
    func destroy() async { await Self.destroy(directory) }
    private static func destroy(_ directory: String) async { _ = try? await Shell.run(script, ["destroy", directory]) }
}

/// Runs helper programs to completion (waiting blocks no thread).
enum Shell {
    struct Failure: Error, CustomStringConvertible { var message: String; var description: String { message } }

    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, text: String) {
        let done = try await ChildProcess.run(executable, arguments: arguments, mergingStandardError: true)
        return (done.status, done.standardOutput)
    }

    static func check(_ executable: String, _ arguments: [String]) async throws {
        let result = try await run(executable, arguments)
        guard result.status == 0 else {
            throw Failure(message: "\(executable) \(arguments.joined(separator: " ")) failed: \(result.text)")
        }
    }

    /// The first of `names` found on PATH or in the usual system folders.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"] {
            let candidate = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A plain blocking TCP connection, for sending a request in pieces (an in-flight request across SIGTERM).
final class RawHTTPConnection: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { close(fd); throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
    }

    /// Everything the server sends until it closes the connection (or 20 s pass).
    func readToEnd() async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = [UInt8]()
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = chunk.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    data.append(contentsOf: chunk[0..<n])
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    deinit { close(fd) }
}
