import GatehouseBench
import GatehouseCore
import GatehouseStorage
import ArgumentParser
import Foundation
import GatehouseServer
import Hummingbird
import Logging
import NIOCore

/// `gatehouse bench-reference`: the bare Hummingbird app `scripts/bench` measures Gatehouse's `/bench/hello`
/// against (see ``BenchReference``).
struct BenchReferenceCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-reference",
        abstract:
            "Serve GET /bench/hello from a bare Hummingbird app (no Gatehouse middleware or storage), for scripts/bench."
    )

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port = 8081

    func execute() async throws {
        var logger = Logger(label: "gatehouse.bench-reference")
        logger.logLevel = .error
        let app = BenchReference.application(host: host, port: port, logger: logger) { channel in
            // The bench and the tests read the bound port from this line (port 0 picks one).
            let bound = channel.localAddress?.port ?? 0
            FileHandle.standardOutput.write(Data("bench-reference listening on http://\(host):\(bound)\n".utf8))
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw fail("port \(port) on \(host) is already in use; pick another with --port")
        }
    }
}

/// `gatehouse bench …`: measurements for `scripts/bench` that need the server's own storage code.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmark probes for scripts/bench.",
        subcommands: [CommitRate.self, Pipeline.self, Emulator.self, CallerRow.self])

    /// `gatehouse bench caller-row`: the cold `/me`'s caller row, by position and by name (``CallerRowProbe``).
    struct CallerRow: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "caller-row",
            abstract:
                "Time the cold /me's database read (token, app, person, grant, app-scoped id) through the server's "
                + "store, decoded by position and by name. Use a throwaway database: the probe seeds people into it. "
                + "Prints one line a row: CPU µs, wall µs, reads, name."
        )

        @OptionGroup var throwaway: ThrowawayDatabase
        @Option(help: "People (and tokens) seeded.") var callers = 1000
        @Option(help: "Reads of each variant.") var iterations = 20000

        func execute() async throws {
            let rows = try await throwaway.run(probe: "caller-row") { location, logger in
                try await CallerRowProbe(location: location, callers: callers, iterations: iterations, logger: logger)
                    .run()
            }
            for row in rows {
                print(
                    String(format: "%8.2f %8.2f %d %@", row.cpuMicroseconds, row.wallMicroseconds, row.reads, row.name))
            }
        }
    }

    /// `gatehouse bench commit-rate`: one-row commits per second through the server's storage settings.
    struct CommitRate: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "commit-rate",
            abstract:
                "Measure the disk's rate of one-row commits with the server's database settings (WAL, "
                + "synchronous=FULL on SQLite). Use a throwaway database: the probe creates and drops a table."
        )

        @OptionGroup var throwaway: ThrowawayDatabase
        @Option(help: "Seconds to measure for.") var seconds = 5.0
        @Flag(help: "Print the result as JSON.") var json = false

        func execute() async throws {
            let result = try await throwaway.run(probe: "commit-rate") { location, logger in
                try await CommitRateProbe(
                    location: location, duration: .milliseconds(Int(seconds * 1000)), logger: logger
                ).run()
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print(
                    String(
                        format: "%@: %d one-row commits in %.2f s = %.0f commits/s", result.database, result.commits,
                        result.seconds, result.commitsPerSecond))
            }
        }
    }

    /// `gatehouse bench emulator`: GatehouseTesting's in-process emulator, each helper timed (``EmulatorProbe``).
    struct Emulator: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "emulator",
            abstract:
                "Time the in-process emulator (GatehouseTesting): start, resets, creating an app, a person and a test "
                + "user, minting a token and a headless login. Prints one line a row: name, p50 ms, p95 ms, samples."
        )

        @Option(help: "Calls of each helper.") var iterations = 50
        @Option(help: "Emulators started (each stopped untimed).") var starts = 10

        func execute() async throws {
            for row in try await EmulatorProbe(iterations: iterations, starts: starts).run() {
                print(
                    String(
                        format: "%@ %.2f %.2f %d", row.name, row.percentile(0.5), row.percentile(0.95),
                        row.milliseconds.count))
            }
        }
    }

    /// `gatehouse bench pipeline`: CPU time per request of each middleware on `/bench/hello`, in-process.
    struct Pipeline: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pipeline",
            abstract:
                "Measure each request middleware's CPU time on /bench/hello in-process (no sockets), against a bare Hummingbird router."
        )

        @Option(help: "Requests per measurement.") var iterations = 200_000
        @Option(name: .customLong("data-dir"), help: "A throwaway data folder (the server's storage opens there).")
        var dataDir: String

        func execute() async throws {
            let rows = try await PipelineProbe(iterations: iterations, dataDirectory: dataDir).run()
            for row in rows {
                print(String(format: "%8.0f ns  %@", row.nanosecondsPerRequest, row.name))
            }
        }
    }
}

/// `--database` of the probes that seed a database or create tables in it, which must be a throwaway one.
struct ThrowawayDatabase: ParsableArguments {
    @Option(
        help: "postgres://… URL or a SQLite file path; a SQLite file must not exist yet and is deleted afterwards.")
    var database: String

    /// Runs `probe`'s `body` on the database with the probes' logger, refusing a SQLite file that exists and
    /// deleting the one the probe made when it succeeds; a storage error is the command's message.
    func run<Output>(probe: String, _ body: (DatabaseLocation, Logger) async throws -> Output) async throws -> Output {
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation(parsing: database)
        } catch StorageError.unavailable(let message) {
            throw fail(message)
        }
        if case .sqlite(let path) = location, FileManager.default.fileExists(atPath: path) {
            throw fail("\(path) exists: the \(probe) probe wants a throwaway SQLite file")
        }
        var logger = Logger(label: "gatehouse.bench")
        logger.logLevel = .warning
        let output: Output
        do {
            output = try await body(location, logger)
        } catch StorageError.unavailable(let message) {
            throw fail(message)
        }
        if case .sqlite(let path) = location {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        return output
    }
}
