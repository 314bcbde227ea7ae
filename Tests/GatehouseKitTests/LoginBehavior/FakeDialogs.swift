import Foundation
import GatehouseKit

/// A dialog of one kind with a scripted availability and outcome, recording whether it was shown.
final class FakeDialog: LoginBehaviorPresenting, @unchecked Sendable {
    let kind: LoginDialogKind
    private let available: Bool
    private let outcome: SessionLoginOutcome
    private let lock = NSLock()
    private var _shown = 0
    private var _availabilityChecks = 0

    init(_ kind: LoginDialogKind, available: Bool = true, outcome: SessionLoginOutcome) {
        self.kind = kind
        self.available = available
        self.outcome = outcome
    }

    var shown: Int { lock.withLock { _shown } }
    var availabilityChecks: Int { lock.withLock { _availabilityChecks } }

    func isAvailable() async -> Bool {
        lock.withLock { _availabilityChecks += 1 }
        return available
    }

    func logIn(permissions: [String], authType: String?, defaultAudience: DefaultAudience) async -> SessionLoginOutcome
    {
        lock.withLock { _shown += 1 }
        return outcome
    }
}

/// Records the steps a behaviour login took.
final class StepLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _steps: [LoginBehaviorLogin.Step] = []
    var steps: [LoginBehaviorLogin.Step] { lock.withLock { _steps } }
    var record: @Sendable (LoginBehaviorLogin.Step) -> Void { { [self] step in lock.withLock { _steps.append(step) } } }
}

enum BehaviorFixtures {
    static func token(userID: String = "42") -> AccessToken {
        AccessToken(
            tokenString: "EAA-behavior", permissions: ["public_profile"], declinedPermissions: [],
            expiredPermissions: [],
            appID: "1", userID: userID, expirationDate: Date().addingTimeInterval(3600), refreshDate: nil,
            dataAccessExpirationDate: nil)
    }
}
