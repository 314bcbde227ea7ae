import AsyncHTTPClient
import ChildProcesses
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// A `gatehouse serve` child process, started by the one helper every test that needs the real binary uses: it
/// starts the server on a port the server binds itself, waits until it is ready within a deadline, reads its dev
/// seed, and stops it on every path out of ``start(_:dataDirectory:port:environment:standardError:deadline:)``.
///
/// Ready means: the banner ("Gatehouse is listening on …", or the `listening` record with `--log-format json`) is
/// out, which the server prints once the seed file is written and the gate is open, and `GET /healthz` answers 200.
/// A request error or a 503 is "not yet"; any other
/// answer, an exit, or the deadline passing stops the process and throws ``NotReady``, which says what it last saw
/// and everything the server printed. Once started, the test stops it (`defer { server.stop() }`); a server
/// nobody stopped is killed when the last reference goes (`ChildProcess`'s `deinit`).
package final class ServedGatehouse: Sendable {
    /// `<data-dir>/dev-seed.json`: the demo app and test users development mode creates.
    ///
    /// Read as any outside test suite reads the documented file, with its own keys, not through the server's
    /// `DevSeed`: a key renamed in the server then fails here instead of changing both sides together.
    package struct Seed: Decodable, Sendable, Equatable {
        package struct App: Decodable, Sendable, Equatable {
            package let id: String
            package let name: String
            package let secret: String
            package let clientToken: String
            package let redirectURIs: [String]
            enum CodingKeys: String, CodingKey {
                case id, name, secret
                case clientToken = "client_token"
                case redirectURIs = "redirect_uris"
            }
        }
        package struct User: Decodable, Sendable, Equatable {
            package let id: String
            package let name: String
            package let email: String
            package let password: String

            package init(id: String, name: String, email: String, password: String) {
                self.id = id
                self.name = name
                self.email = email
                self.password = password
            }
        }
        package let app: App
        package let users: [User]
        package let server: String
        package let dialogURL: String
        enum CodingKeys: String, CodingKey {
            case app, users, server
            case dialogURL = "dialog_url"
        }
    }

    /// Which data directory the server uses, and how it is told.
    package enum DataDirectory: Sendable {
        /// A new scratch folder, passed as `--data-dir` and removed once the server has stopped.
        case scratch
        /// The test's own folder, passed as `--data-dir`; the test removes it.
        case given(String)
        /// The test's own folder, passed only as `GATEHOUSE_DATA_DIR` in the environment.
        case environment(String)
    }

    /// Why a server did not become ready; the process has been stopped.
    package struct NotReady: Error, CustomStringConvertible {
        package let reason: String
        /// The last answer or error of the readiness check (or that there was no banner yet).
        package let lastSeen: String
        /// Everything the server printed.
        package let output: String
        package var description: String {
            "gatehouse serve did not become ready: \(reason); last seen: \(lastSeen)\n--- its output ---\n\(output)"
        }
    }

    package let process: ChildProcess
    /// The port the server listens on (announced in its banner when started with `--port 0`).
    package let port: Int
    /// `http://127.0.0.1:PORT`.
    package let baseURL: String
    package let dataDirectory: String
    /// The dev seed the server wrote; nil when it wrote none (production mode, a scenario).
    package let seed: Seed?
    private let scratch: ScratchDirectory?

    /// The `gatehouse` executable SwiftPM built next to the test bundle, or `GATEHOUSE_BIN`.
    package static var binary: String { ChildProcess.builtProduct("gatehouse", override: "GATEHOUSE_BIN") }

    /// The line the server prints once it listens, its seed is written and its gate is open.
    package static let bannerStart = "Gatehouse is listening on "

    private init(
        process: ChildProcess, port: Int, dataDirectory: String, seed: Seed?, scratch: ScratchDirectory?
    ) {
        self.process = process
        self.port = port
        self.baseURL = "http://127.0.0.1:\(port)"
        self.dataDirectory = dataDirectory
        self.seed = seed
        self.scratch = scratch
    }

    /// Starts `gatehouse serve ARGUMENTS…` and returns once it is ready (see the type's description).
    /// - Parameters:
    ///   - arguments: `serve`'s arguments besides `--port` and `--data-dir`.
    ///   - port: 0 (the default) lets the server bind a free port and announce it: a port picked here could be
    ///     taken by another test's server before this one binds it. Pass a port only when the banner shows a
    ///     public URL instead of the listening address (production mode with `--public-url`).
    ///   - environment: changes to the environment; a nil value removes a variable.
    ///   - standardError: where the server's log goes (`.merged` keeps it in ``output`` for failure messages).
    package static func start(
        _ arguments: [String] = [],
        dataDirectory: DataDirectory = .scratch,
        port: Int = 0,
        environment: [String: String?] = [:],
        standardError: ChildProcess.StandardError = .merged,
        deadline: Duration = .seconds(90)
    ) async throws -> ServedGatehouse {
        var arguments = ["serve", "--port", "\(port)"] + arguments
        var environment = environment
        let directory: String
        var scratch: ScratchDirectory?
        switch dataDirectory {
        case .scratch:
            let created = try ScratchDirectory.create("serve")
            scratch = created
            directory = created.path
            arguments += ["--data-dir", directory]
        case .given(let path):
            directory = path
            arguments += ["--data-dir", directory]
        case .environment(let path):
            directory = path
            environment["GATEHOUSE_DATA_DIR"] = path
        }
        let process: ChildProcess
        do {
            process = try await ChildProcess.start(
                binary, arguments: arguments, environment: environment, standardError: standardError)
        } catch {
            scratch?.remove()
            throw error
        }
        func fail(_ reason: String, _ lastSeen: String) async -> NotReady {
            await process.kill()
            scratch?.remove()
            return NotReady(reason: reason, lastSeen: lastSeen, output: process.output)
        }
        let bound: Int
        do {
            bound = try await waitUntilReady(
                process, port: port, tls: arguments.contains("--tls-cert"), deadline: deadline)
        } catch let failure as Unready {
            throw await fail(failure.reason, failure.lastSeen)
        } catch {
            throw await fail("\(error)", "the readiness check was cancelled")
        }
        let seedPath = directory + "/dev-seed.json"
        var seed: Seed?
        if let data = FileManager.default.contents(atPath: seedPath) {
            do {
                seed = try JSONDecoder().decode(Seed.self, from: data)
            } catch {
                throw await fail("its seed \(seedPath) does not decode", "\(error)")
            }
        }
        return ServedGatehouse(process: process, port: bound, dataDirectory: directory, seed: seed, scratch: scratch)
    }

    /// The readiness check's client for a server that serves HTTPS: it trusts any certificate, since the check asks
    /// only whether the server answers (the test that started it checks the certificate itself).
    private static let tlsProbe: HTTPClient = {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }()

    private struct Unready: Error {
        let reason: String
        let lastSeen: String
    }

    /// Polls until the banner is out and `/healthz` answers 200; the port it answers on.
    private static func waitUntilReady(_ process: ChildProcess, port: Int, tls: Bool, deadline: Duration) async throws
        -> Int
    {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        var lastSeen = "no banner yet"
        while clock.now < end {
            let output = process.output
            if !process.isRunning {
                let status = await process.waitForExit()
                throw Unready(reason: "it exited with status \(status) before it was ready", lastSeen: lastSeen)
            }
            if let announced = announcedURL(in: output) {
                guard let bound = port != 0 ? port : URLComponents(string: announced)?.port else {
                    throw Unready(
                        reason: "its banner names no port; pass `port:` when the banner shows a public URL",
                        lastSeen: "the banner's URL \(announced)")
                }
                // A server started with `--tls-cert` answers HTTPS only; its certificate is the test's to check. An
                // https public URL alone is a TLS-terminating proxy's: the server itself answers plain HTTP.
                do {
                    let response = try await (tls ? tlsProbe : HTTPClient.shared).execute(
                        HTTPClientRequest(url: "\(tls ? "https" : "http")://127.0.0.1:\(bound)/healthz"),
                        timeout: .seconds(10))
                    let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                    switch response.status {
                    case .ok: return bound
                    case .serviceUnavailable: lastSeen = "GET /healthz: 503 \(body)"
                    default:
                        throw Unready(
                            reason: "GET /healthz answered \(response.status.code)",
                            lastSeen: "\(response.status.code) \(body)")
                    }
                } catch let unready as Unready {
                    throw unready
                } catch {
                    lastSeen = "GET /healthz: \(error)"
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Unready(reason: "not ready within \(deadline)", lastSeen: lastSeen)
    }

    /// The URL in the banner: "Gatehouse is listening on URL (… mode)", or with `--log-format json` the `url` of
    /// the `listening` record. Nil until the server has printed it.
    private static func announcedURL(in output: String) -> String? {
        if let banner = output.range(of: bannerStart) {
            let rest = output[banner.upperBound...]
            guard rest.contains("\n") else { return nil }
            return String(rest.prefix { !$0.isWhitespace })
        }
        for line in output.split(separator: "\n") where line.contains(#""message":"listening""#) {
            let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if let url = record?["url"] as? String { return url }
        }
        return nil
    }

    /// Everything the server printed so far (standard output, and its log unless sent elsewhere).
    package var output: String { process.output }

    /// Whether the process has not exited yet.
    package var isRunning: Bool { process.isRunning }

    /// SIGTERM, and returns at once (usable in `defer`). Waiting for the exit here would block one of the
    /// cooperative threads every async test shares while the server drains its keep-alive connections; the
    /// process is reaped and a scratch folder removed in a task instead (or by `ScratchDirectory`'s exit sweep).
    package func stop() {
        process.terminate()
        Task { [process, scratch] in
            await process.waitForExit()
            scratch?.remove()
        }
    }

    /// SIGTERM, then waits for the exit: its status.
    @discardableResult
    package func stopAndWait() async -> Int32 {
        process.terminate()
        let status = await process.waitForExit()
        scratch?.remove()
        return status
    }

    /// SIGTERM only: the graceful shutdown path, for tests that watch it (``exitStatus(timeout:)``).
    package func terminate() { process.terminate() }

    /// SIGKILL: the process gets no chance to flush or close anything. Returns once it is gone.
    package func kill() async {
        await process.kill()
        scratch?.remove()
    }

    /// The exit status once the process has ended (128 + signal if killed), or nil if it still runs after
    /// `timeout`.
    package func exitStatus(timeout: Duration) async -> Int32? {
        await process.exitStatus(timeout: timeout)
    }
}
