import GatehouseCore
import Foundation
import GatehouseProtocol
import Logging

/// Adds, lists and applies injected Graph errors.
///
/// Checked on every authenticated Graph call when injection is enabled (development mode by default):
/// the first matching injection, oldest first, answers the call instead of the endpoint.
package struct ErrorInjector: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) {
        self.services = services
    }

    /// Problems with an injection request, with a message the person can act on.
    package enum InjectionError: Error, Equatable, CustomStringConvertible {
        case unknownError(String)
        case unknownTarget(String)
        case invalidCount
        case disabled

        package var description: String {
            switch self {
            case .unknownError(let spec):
                "unknown error \"\(spec)\"; use one of "
                    + InjectableError.allCases.map { "\($0.rawValue) (\($0.name))" }.joined(separator: ", ")
            case .unknownTarget(let what): "no \(what) to inject into"
            case .invalidCount: "times must be a whole number from 1 to 1000000, or omitted for until cleared"
            case .disabled: "error injection is off on this server (production mode)"
            }
        }
    }

    /// Adds an injection. `targetID` is a user id (global or app-scoped), an app id, or a token
    /// (its text, or its record id).
    package func add(kind: InjectionTargetKind, target: String, error spec: String, times: Int?) async throws
        -> InjectedErrorRecord
    {
        guard services.configuration.errorInjectionEnabled else { throw InjectionError.disabled }
        guard let error = InjectableError(spec: spec) else { throw InjectionError.unknownError(spec) }
        if let times, !(1...1_000_000).contains(times) { throw InjectionError.invalidCount }
        let targetID = try await resolveTarget(kind, target)
        let record = InjectedErrorRecord(
            id: services.random.uuidString().lowercased(), targetKind: kind, targetID: targetID, code: error.code,
            subcode: error.subcode, remaining: times, createdAt: services.clock.now())
        try await services.storage.emulator.insertInjection(record)
        services.logger.info("error injected", metadata: ["kind": "\(kind.rawValue)", "error": "\(error.rawValue)"])
        return record
    }

    /// The error the call should fail with, using up one count of the injection that supplies it.
    package func check(_ caller: Caller) async throws -> GraphError? {
        guard services.configuration.errorInjectionEnabled else { return nil }
        // Built whole, in one allocation: this runs on every Graph call in development mode.
        let targets: [(InjectionTargetKind, String)]
        if case .user(let user) = caller {
            targets = [(.app, caller.app.id), (.user, user.user.id), (.token, user.token.id)]
        } else {
            targets = [(.app, caller.app.id)]
        }
        for injection in try await services.storage.emulator.injections(targets: targets) {
            guard let error = InjectableError(code: injection.code, subcode: injection.subcode) else { continue }
            // The rule's number as the console lists it (oldest first), read before the last use deletes it; only
            // with the journal on, and only when an injection matches.
            let note = JournalNote.current
            let rule =
                note == nil
                ? 0
                : ((try? await services.storage.emulator.injections())?.firstIndex { $0.id == injection.id } ?? -1) + 1
            if try await services.storage.emulator.consumeInjection(id: injection.id) {
                if let note {
                    note.explain(
                        JournalExplanation.injected(
                            code: injection.code, subcode: injection.subcode, rule: rule,
                            remainingAfter: injection.remaining.map { max(0, $0 - 1) }))
                }
                return error.graphError(appID: caller.app.id, now: services.clock.now())
            }
        }
        return nil
    }

    private func resolveTarget(_ kind: InjectionTargetKind, _ target: String) async throws -> String {
        let storage = services.storage
        switch kind {
        case .app:
            guard try await storage.apps.find(id: target) != nil else {
                throw InjectionError.unknownTarget("app \(target)")
            }
            return target
        case .user:
            if try await storage.users.find(id: target) != nil { return target }
            for app in try await storage.apps.list() {
                if let id = try await storage.users.userID(appID: app.id, scopedID: target) { return id }
            }
            if let user = try await storage.users.find(email: target) { return user.id }
            throw InjectionError.unknownTarget("user \(target)")
        case .token:
            if target.count <= 512, let record = try await storage.tokens.find(tokenHash: SecretHash.sha256Hex(target))
            {
                return record.id
            }
            if try await storage.tokens.live(appID: nil, userID: nil, now: services.clock.now()).contains(where: {
                $0.id == target
            }) {
                return target
            }
            throw InjectionError.unknownTarget("live token matching that value")
        }
    }
}

extension GatehouseConfiguration {
    /// Error injection is an emulator feature: on in development mode, off in production.
    package var errorInjectionEnabled: Bool { mode == .development }
}
