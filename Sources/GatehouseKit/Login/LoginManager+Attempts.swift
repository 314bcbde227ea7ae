import Foundation

/// Running one login attempt: state rule, dialog, callback, storing the tokens, delivering the result.
extension LoginManager {
    /// Starts an attempt; returns its number, or nil when the start-state rule dropped it.
    @discardableResult
    func start(
        _ configuration: LoginConfiguration, audience: DefaultAudience, checksState: Bool,
        deliver: @escaping @Sendable (LoginCompletion) -> Void
    ) -> Int? {
        let (attempt, superseded): (Int?, PendingLogin?) = lock.withLock {
            switch machine.requestLogIn(checksState: checksState) {
            case .drop:
                return (nil, nil)
            case .begin(let attempt):
                pending[attempt] = PendingLogin(deliver: deliver)
                return (attempt, nil)
            case .cancelPreviousAndBegin(let previous, let attempt):
                pending[attempt] = PendingLogin(deliver: deliver)
                return (attempt, pending.removeValue(forKey: previous))
            }
        }
        guard let attempt else { return nil }
        if let superseded {
            superseded.task?.cancel()
            superseded.deliver(.cancelled)
        }
        let environment = self.environment
        let task = Task {
            let completion = await self.perform(
                attempt: attempt, configuration: configuration, audience: audience, environment: environment)
            self.finish(attempt: attempt, with: completion, environment: environment)
        }
        let stored = lock.withLock {
            guard pending[attempt] != nil else { return false }
            pending[attempt]?.task = task
            return true
        }
        // Superseded or finished before the task was recorded: make sure it stops waiting.
        if !stored { task.cancel() }
        return attempt
    }

    /// Starts an attempt and waits for it; cancelling the waiting task cancels the attempt.
    func awaitLogin(_ configuration: LoginConfiguration, audience: DefaultAudience, checksState: Bool) async throws
        -> LoginCompletion
    {
        let box = AttemptBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<LoginCompletion, any Error>) in
                let attempt = start(configuration, audience: audience, checksState: checksState) {
                    continuation.resume(returning: $0)
                }
                guard let attempt else {
                    return continuation.resume(
                        throwing: LoginError(.unknown, message: "another login is starting; this call was dropped"))
                }
                if box.set(attempt) { cancel(attempt: attempt) }
            }
        } onCancel: {
            if let attempt = box.markCancelled() { self.cancel(attempt: attempt) }
        }
    }

    /// Ends `attempt` as cancelled, if it is still the current one.
    func cancel(attempt: Int) {
        let cancelled: PendingLogin? = lock.withLock {
            machine.finish(attempt: attempt) ? pending.removeValue(forKey: attempt) : nil
        }
        cancelled?.task?.cancel()
        cancelled?.deliver(.cancelled)
    }

    private func perform(
        attempt: Int, configuration: LoginConfiguration, audience: DefaultAudience, environment: GatehouseKitEnvironment
    ) async -> LoginCompletion {
        let settings = environment.settings
        if let refusal = InfoPlistCheck.loginRefusal(settings) { return .failed(refusal) }
        guard let builder = LoginDialogURLBuilder(settings: settings) else {
            return .failed(CoreError(.invalidArgument, message: InfoPlistCheck.missingAppIDMessage))
        }
        do {
            let redirectURI = try await presenter.prepare()
            let state = LoginDialogState.random()
            let url = builder.url(
                for: .init(
                    configuration: configuration, redirectURI: redirectURI, defaultAudience: audience, state: state,
                    now: environment.clock.now(), uptime: ProcessInfo.processInfo.systemUptime,
                    userTokenNonce: lock.withLock { userTokenNonce }))
            lock.withLock { _ = machine.dialogPresented(attempt: attempt) }
            // Remembered in the token cache so a callback reaching a relaunched process can finish it.
            let pendingState = PendingLoginState(
                challenge: state.challenge, codeVerifier: configuration.codeVerifier.value, nonce: configuration.nonce,
                redirectURI: redirectURI, permissions: configuration.requestedPermissions.map(\.name).sorted(),
                isLimited: configuration.tracking == .limited, startedAt: environment.clock.now())
            PendingLoginStore.save(pendingState, in: environment)
            defer { PendingLoginStore.clear(pendingState, in: environment) }
            // Always present after prepare, even when superseded meanwhile: presenters release what
            // prepare() set up when they see the cancelled task.
            let callbackURL = try await presenter.present(url)
            if Task.isCancelled { return .cancelled }
            let completion = try await LoginFinishing.complete(
                callbackURL: callbackURL, expectations: pendingState.expectations, environment: environment,
                graph: graphClient ?? GraphTransport(environment: environment), appID: builder.appID)
            return completion
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(error)
        }
    }

    /// Stores the tokens and delivers the result, unless a newer login superseded this one.
    private func finish(attempt: Int, with completion: LoginCompletion, environment: GatehouseKitEnvironment) {
        let finished: PendingLogin? = lock.withLock {
            guard machine.finish(attempt: attempt) else { return nil }
            if let nonce = completion.userTokenNonce { userTokenNonce = nonce }
            return pending.removeValue(forKey: attempt)
        }
        guard let finished else { return }
        LoginFinishing.store(completion, in: environment)
        finished.deliver(completion)
        warnOfDisplayNameMismatch(after: completion, environment: environment)
    }

    /// Facebook warns when `FacebookDisplayName` differs from the app's name; here the server is asked once
    /// the login gave a token, and the warning is written to stderr under `.developerErrors`.
    private func warnOfDisplayNameMismatch(after completion: LoginCompletion, environment: GatehouseKitEnvironment) {
        let settings = environment.settings
        guard settings.displayName != nil, settings.isLoggingBehaviorEnabled(.developerErrors),
            let token = completion.result?.token
        else { return }
        Task {
            guard let warning = await InfoPlistCheck.displayNameWarning(token: token, environment: environment) else {
                return
            }
            FileHandle.standardError.write(Data("GatehouseKit: \(warning)\n".utf8))
        }
    }
}

/// Hands the attempt number from the starting closure to the cancellation handler, whichever runs first.
private final class AttemptBox: @unchecked Sendable {
    private let lock = NSLock()
    private var attempt: Int?
    private var cancelled = false

    /// Records the attempt; true when the task was already cancelled (the caller must cancel it).
    func set(_ attempt: Int) -> Bool {
        lock.withLock {
            self.attempt = attempt
            return cancelled
        }
    }

    /// Records cancellation; returns the attempt to cancel if it is known yet.
    func markCancelled() -> Int? {
        lock.withLock {
            cancelled = true
            return attempt
        }
    }
}
