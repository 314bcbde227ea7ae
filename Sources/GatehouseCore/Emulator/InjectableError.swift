import Foundation
import GatehouseProtocol

/// The Facebook errors the emulator can inject, named the way developers talk about them.
///
/// Each maps to the exact error a real Graph call would return, so the SDK's `ErrorRecovery`
/// categorises it the same way it would in production.
package enum InjectableError: Sendable, CaseIterable, Hashable {
    case passwordChanged
    case appRemoved
    case expired
    case appRateLimit
    case userRateLimit
    case transient
    case missingPermission
    case checkpointed
    case unconfirmed
    case loggedOut

    /// The reason, for the errors of the 190 family (``SessionSubcode`` holds their numbers).
    package var sessionSubcode: SessionSubcode? {
        switch self {
        case .passwordChanged: .passwordChanged
        case .appRemoved: .appNotAuthorized
        case .expired: .expired
        case .checkpointed: .checkpointed
        case .unconfirmed: .unconfirmed
        case .loggedOut: .loggedOut
        case .appRateLimit, .userRateLimit, .transient, .missingPermission: nil
        }
    }

    package var code: Int {
        switch self {
        case .appRateLimit: 4
        case .userRateLimit: 17
        case .transient: 2
        case .missingPermission: 200
        default: SessionSubcode.code
        }
    }

    package var subcode: Int? { sessionSubcode?.rawValue }

    /// `190/460`, or the code alone: how it is written on the wire of the admin API and in scenario files.
    package var rawValue: String { subcode.map { "\(code)/\($0)" } ?? "\(code)" }

    package init?(rawValue: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = match
    }

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
        let meaning =
            switch self {
            case .passwordChanged: "session invalidated (password changed)"
            case .appRemoved: "user removed the app"
            case .expired: "token expired"
            case .appRateLimit: "application request limit reached"
            case .userRateLimit: "user request limit reached"
            case .transient: "temporary service error (transient)"
            case .missingPermission: "missing permission"
            case .checkpointed: "account held at a checkpoint"
            case .unconfirmed: "account not confirmed"
            case .loggedOut: "session invalid (logged out)"
            }
        return "\(rawValue) · \(meaning)"
    }

    /// The Graph error a call answers with.
    package func graphError(appID: String, now: Date) -> GraphError {
        switch self {
        case .passwordChanged: .passwordChanged
        case .appRemoved: .appNotAuthorized(appID: appID)
        case .expired: .tokenExpired(expiredAt: now.addingTimeInterval(-1), now: now)
        case .appRateLimit: .appRateLimit
        case .userRateLimit: .userRateLimit
        case .transient: .serviceUnavailable
        case .missingPermission: .permissionsError
        case .checkpointed: .checkpointed
        case .unconfirmed: .unconfirmedUser
        case .loggedOut: .sessionLoggedOut
        }
    }
}
