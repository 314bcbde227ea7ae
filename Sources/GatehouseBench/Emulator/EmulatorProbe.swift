import Foundation
import GatehouseKit
import GatehouseTesting

/// What an app's tests pay for GatehouseTesting's in-process emulator (issue 43): ``GatehouseEmulator/start(_:)``
/// and, on one emulator, each helper a test calls between its assertions: a reset to empty and to the seed,
/// creating an app, a person and a test user, minting a token, and a whole login through the dialog by
/// ``HeadlessLoginPresenter`` and GatehouseKit's `LoginManager`. Wall-clock time per call, as a test sees it.
package struct EmulatorProbe: Sendable {
    /// One operation's samples, in milliseconds.
    package struct Row: Sendable {
        package let name: String
        package let milliseconds: [Double]

        /// The `fraction` quantile (nearest rank) of the samples.
        package func percentile(_ fraction: Double) -> Double {
            let sorted = milliseconds.sorted()
            guard !sorted.isEmpty else { return 0 }
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
    }

    /// Calls of each helper (on one emulator); starts are `starts` emulators, each stopped untimed.
    let iterations: Int
    let starts: Int

    package init(iterations: Int, starts: Int) {
        self.iterations = iterations
        self.starts = starts
    }

    /// The rows in the order the benchmark's emulator table lists them (`scripts/lib/bench/report.py`).
    package func run() async throws -> [Row] {
        var startTimes: [Double] = []
        for _ in 0..<starts {
            let (emulator, took) = try await Self.timed { try await GatehouseEmulator.start() }
            startTimes.append(took)
            try await emulator.stop()
        }
        let emulator = try await GatehouseEmulator.start()
        var samples: [String: [Double]] = [:]
        func time<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
            let (value, took) = try await Self.timed(body)
            samples[name, default: []].append(took)
            return value
        }
        for i in 0..<iterations {
            try await time("reset_empty") { try await emulator.reset(to: .empty) }
            try await time("reset_seed") { try await emulator.reset(to: .seed) }
            let app = try await time("create_app") {
                try await emulator.createApp(name: "Probe \(i)", redirectURIs: ["https://probe.example/callback"])
            }
            let person = try await time("create_person") {
                try await emulator.createPerson(firstName: "Pat", lastName: "Probe", email: "pat\(i)@probe.example")
            }
            _ = try await time("create_test_user") {
                try await emulator.createPerson(
                    firstName: "Tess", lastName: "Probe", email: "tess\(i)@probe.example", testUserOf: app)
            }
            _ = try await time("mint_token") { try await emulator.mintToken(for: person, app: app) }
            // A fresh browser each time: the seed's first person signs in with their password and consents.
            let presenter = HeadlessLoginPresenter(emulator: emulator, person: emulator.users[0])
            let manager = LoginManager(presenter: presenter, environment: emulator.kitEnvironment())
            let result = try await time("headless_login") { try await manager.logIn(permissions: ["email"]) }
            guard result.token != nil else { throw ProbeError("the headless login ended without a token") }
        }
        try await emulator.stop()
        let order = [
            "reset_empty", "reset_seed", "create_app", "create_person", "create_test_user", "mint_token",
            "headless_login",
        ]
        return [Row(name: "start", milliseconds: startTimes)]
            + order.map { Row(name: $0, milliseconds: samples[$0] ?? []) }
    }

    private static func timed<T>(_ body: () async throws -> T) async throws -> (T, Double) {
        let clock = ContinuousClock()
        let begun = clock.now
        let value = try await body()
        let took = begun.duration(to: clock.now)
        return (value, Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) / 1e15)
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
