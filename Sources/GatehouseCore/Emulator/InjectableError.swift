import Foundation
import GatehouseProtocol

/// The Facebook errors the emulator can inject, named the way developers talk about them.
///
/// Each maps to the exact error a real Graph call would return, so the SDK's `ErrorRecovery`
/// categorises it the same way it would in production.
package enum InjectableError: String, Sendable, CaseIterable {
    case passwordChanged = "190/460"
    case appRemoved = "190/458"
    case expired = "190/463"
    case appRateLimit = "4"
    case userRateLimit = "17"
    case transient = "2"
    case missingPermission = "200"
    case checkpointed = "190/459"
    case unconfirmed = "190/464"
    case loggedOut = "190/467"

    /// Parses `190/460`, `190.460`, `4`, or a name such as `password-changed`.
    package init?(spec: String) {
        let normalized = spec.lowercased().replacingOccurrences(of: ".", with: "/").replacingOccurrences(
            of: "_", with: "-")
        if let exact = InjectableError(rawValue: normalized) {
            self = exact
        } else if let named = Self.allCases.first(where: { $0.name == normalized }) {
            self = named
        } else {
            return nil
        }
    }

    /// Builds from a stored code and subcode.
    package init?(code: Int, subcode: Int?) {
        self.init(spec: subcode.map { "\(code)/\($0)" } ?? "\(code)")
    }

    /// A stable, readable name for the CLI and the console.
    package var name: String {
        switch self {
        case .passwordChanged: "password-changed"
        case .appRemoved: "app-removed"
        case .expired: "expired"
        case .appRateLimit: "app-rate-limit"
        case .userRateLimit: "user-rate-limit"
        case .transient: "transient"
        case .missingPermission: "missing-permission"
        case .checkpointed: "checkpointed"
        case .unconfirmed: "unconfirmed"
        case .loggedOut: "logged-out"
        }
    }

    /// What a developer sees in the console's menu.
    package var title: String {
        switch self {
        case .passwordChanged: "190/460 · session invalidated (password changed)"
        case .appRemoved: "190/458 · user removed the app"
        case .expired: "190/463 · token expired"
        case .appRateLimit: "4 · application request limit reached"
        case .userRateLimit: "17 · user request limit reached"
        case .transient: "2 · temporary service error (transient)"
        case .missingPermission: "200 · missing permission"
        case .checkpointed: "190/459 · account held at a checkpoint"
        case .unconfirmed: "190/464 · account not confirmed"
        case .loggedOut: "190/467 · session invalid (logged out)"
        }
    }

    package var code: Int { Int(rawValue.split(separator: "/")[0])! }
    package var subcode: Int? { rawValue.split(separator: "/").dropFirst().first.flatMap { Int($0) } }

    /// The Graph error a call answers with.
    package func graphError(appID: String, now: Date) -> GraphError {
        switch self {
        case .passwordChanged: .passwordChanged
        case .appRemoved: .appNotAuthorized(appID: appID)
        case .expired: .tokenExpired(expiredAt: now.addingTimeInterval(-1), now: now)
        case .appRateLimit: .appRateLimit
        case .userRateLimit: .userRateLimit
        case .transient: .serviceUnavailable
        case .missingPermission:
            GraphError(message: "(#200) Permissions error", type: "OAuthException", code: 200, httpStatus: 403)
        case .checkpointed: .checkpointed
        case .unconfirmed: .unconfirmedUser
        case .loggedOut: .sessionLoggedOut
        }
    }
}
