import GatehouseCore
import Foundation
import Logging

/// Moves the server's clock in development mode, and keeps the offset across restarts.
///
/// The clock itself is the `AdjustableClock` the services were built with; this type validates
/// requests and persists the offset so a restarted emulator keeps its place in time.
package struct ClockControl: Sendable {
    let services: GatehouseServices
    static let offsetSetting = "clock_offset_seconds"

    package init(services: GatehouseServices) {
        self.services = services
    }

    /// Why the clock cannot be moved.
    package enum ClockError: Error, Equatable, CustomStringConvertible {
        case notControllable
        case backwards
        case tooFar

        package var description: String {
            switch self {
            case .notControllable: "the clock can only be moved in development mode"
            case .backwards: "the clock only moves forward; use reset to return to real time"
            case .tooFar: "the clock moves at most 100 years ahead of real time"
            }
        }
    }

    /// How far ahead of real time the clock may stand. Every stored time is whole seconds in 64 bits and every
    /// page prints a calendar date, so an unbounded advance (schemathesis sent 7.3e98 s) crashed the server.
    package static let maximumOffset: TimeInterval = 100 * 365.25 * 86_400

    /// Where the clock stands.
    package struct Status: Sendable, Equatable {
        package var now: Date
        package var offset: TimeInterval
        package var controllable: Bool
    }

    package func status() -> Status {
        Status(
            now: services.clock.now(), offset: services.clockControl?.currentOffset ?? 0,
            controllable: services.clockControl != nil)
    }

    /// Moves time forward by `interval` seconds.
    package func advance(by interval: TimeInterval) async throws -> Status {
        guard let clock = services.clockControl else { throw ClockError.notControllable }
        guard interval >= 0 else { throw ClockError.backwards }
        guard interval.isFinite, clock.currentOffset + interval <= Self.maximumOffset else { throw ClockError.tooFar }
        clock.advance(by: interval)
        try await persist(clock)
        services.logger.info("clock advanced", metadata: ["seconds": "\(Int(interval))"])
        return status()
    }

    /// Returns to real time (offset zero).
    package func reset() async throws -> Status {
        guard let clock = services.clockControl else { throw ClockError.notControllable }
        clock.advance(by: -clock.currentOffset)
        try await persist(clock)
        return status()
    }

    /// Applies the persisted offset (none stored means real time); called at start-up and after an import.
    package func restore() async throws {
        restore(offset: try await services.storage.emulator.setting(Self.offsetSetting))
    }

    /// Applies `offset`, the setting's value as stored (nil: real time), without reading it.
    package func restore(offset: String?) {
        guard let clock = services.clockControl else { return }
        let offset = offset.flatMap(Double.init) ?? 0
        clock.advance(by: offset - clock.currentOffset)
    }

    private func persist(_ clock: AdjustableClock) async throws {
        let offset = clock.currentOffset
        try await services.storage.emulator.setSetting(Self.offsetSetting, offset == 0 ? nil : String(Int64(offset)))
    }
}

/// Parses durations such as `61d`, `90m`, `2h30m`, `1w`, `3600` (seconds) or `3600s`.
package enum DurationParser {
    package static func seconds(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty, trimmed.count <= 32 else { return nil }
        if let plain = Double(trimmed), plain.isFinite { return plain }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var total = 0.0, digits = ""
        for ch in trimmed {
            if ch.isNumber { digits.append(ch); continue }
            guard let unit = units[ch], let value = Double(digits) else { return nil }
            total += value * unit
            digits = ""
        }
        return digits.isEmpty ? total : nil
    }
}
