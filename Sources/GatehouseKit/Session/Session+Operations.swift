import Foundation

extension Session {
    // MARK: Opening

    /// Opens the session (Facebook's `openWithCompletionHandler:` / `openActiveSession…allowLoginUI:`).
    ///
    /// With a cached token it opens at once without the dialog. Otherwise, with `allowLoginUI` it
    /// shows the dialog (`createdOpening`, then `open` or `closedLoginFailed`); without it the session
    /// stays `created`. `completion` becomes the state-change handler; a refused request (closed
    /// session, no cached token, already open) calls it once with the unchanged state and a ``SessionError``.
    public func open(allowLoginUI: Bool, completion: StateHandler?) {
        if let completion { setStateChangeHandler(completion) }
        if let error = beginOpen(allowLoginUI: allowLoginUI, resolver: nil) { completion?(self, state, error) }
    }

    /// Opens the session and returns `.open`; throws ``SessionError`` or the dialog's error.
    @discardableResult
    public func open(allowLoginUI: Bool = true) async throws -> SessionState {
        try await withCheckedThrowingContinuation { continuation in
            let resolver: OpenResolver = { state, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: state) }
            }
            if let error = beginOpen(allowLoginUI: allowLoginUI, resolver: resolver) {
                continuation.resume(throwing: error)
            }
        }
    }

    /// - Parameter provider: the dialog for this open (``open(behavior:completion:)``), else ``loginProvider``.
    func beginOpen(allowLoginUI: Bool, resolver: OpenResolver?, provider: (any SessionLoginProviding)? = nil)
        -> SessionError?
    {
        let permissionsToAsk = lock.withLock { pendingPermissions } ?? requestedPermissions
        let audience = lock.withLock { openAudience }
        let actions = apply(
            allowLoginUI ? .openWithUI : .openSilently,
            unless: {
                if state == .created, !allowsPublishPermissionsOnOpen,
                    permissionsToAsk.contains(where: PermissionKind.isPublish)
                {
                    return .publishPermissionsInReadRequest
                }
                return allowLoginUI && state == .created && provider == nil && loginProvider == nil
                    ? .noLoginProvider : nil
            },
            then: { actions in
                guard actions.rejection == nil else { return }
                if let resolver { awaitOpen(resolver) }
                if actions.contains(.showLoginUI) {
                    runLogin(permissions: permissionsToAsk, authType: nil, audience: audience, provider: provider) {
                        [self] outcome in
                        switch outcome {
                        case .success(let token): apply(.loginSucceeded, token: token)
                        case .cancelled: apply(.loginCancelled, error: SessionError.loginCancelled)
                        case .failed(let error): apply(.loginFailed, error: error)
                        }
                    }
                }
            })
        return actions.rejection
    }

    /// Abandons a dialog the person left without answering (Facebook's `handleDidBecomeActive`):
    /// a session in `createdOpening` becomes `closedLoginFailed` with ``SessionError/loginCancelled``.
    public func handleDidBecomeActive() {
        apply(.loginAbandoned, error: SessionError.loginCancelled)
    }

    // MARK: Permissions

    /// Asks for more read permissions. Granted (at least one) → `openTokenExtended` with the new
    /// token; refused → state unchanged. The completion's error is nil unless the dialog was cancelled
    /// or failed; check ``permissions`` for what was granted, as the seeds do.
    ///
    /// A publish permission in the list is refused with ``SessionError/publishPermissionsInReadRequest``
    /// before any dialog, as Facebook's SDK refused it: read and publish permissions are asked apart.
    public func requestNewReadPermissions(_ permissions: [String], completion: RequestCompletion?) {
        if permissions.contains(where: PermissionKind.isPublish) {
            completion?(self, SessionError.publishPermissionsInReadRequest)
            return
        }
        requestPermissions(permissions, audience: .friends, completion: completion)
    }

    /// Asks for publish permissions with the audience posts get by default (Facebook's
    /// `requestNewPublishPermissions:defaultAudience:completionHandler:`). The dialog shows its publish step,
    /// where the person may also pick another audience. As ``requestNewReadPermissions(_:completion:)``;
    /// a read permission in the list is refused with ``SessionError/readPermissionsInPublishRequest``.
    public func requestNewPublishPermissions(
        _ permissions: [String], defaultAudience: DefaultAudience, completion: RequestCompletion?
    ) {
        if permissions.contains(where: { !PermissionKind.isPublish($0) }) {
            completion?(self, SessionError.readPermissionsInPublishRequest)
            return
        }
        requestPermissions(permissions, audience: defaultAudience, completion: completion)
    }

    public func requestNewReadPermissions(_ permissions: [String]) async throws {
        try await withRequestCompletion { requestNewReadPermissions(permissions, completion: $0) }
    }

    public func requestNewPublishPermissions(_ permissions: [String], defaultAudience: DefaultAudience) async throws {
        try await withRequestCompletion {
            requestNewPublishPermissions(permissions, defaultAudience: defaultAudience, completion: $0)
        }
    }

    private func requestPermissions(_ permissions: [String], audience: DefaultAudience, completion: RequestCompletion?)
    {
        let actions = apply(
            .requestPermissions,
            unless: {
                guard state.isOpen else { return nil }
                if loginProvider == nil { return .noLoginProvider }
                return operationsInFlight > 0 ? .loginInProgress : nil
            },
            then: { actions in
                guard actions.contains(.showLoginUI) else { return }
                // A refusal keeps the session's token, but what it declined is remembered here.
                let declined = (accessToken?.declinedPermissions ?? []).union(refusedPermissions)
                // Asking again for something declined needs auth_type=rerequest, or the dialog skips it.
                let authType = permissions.contains { declined.contains(Permission($0)) } ? "rerequest" : nil
                runLogin(permissions: permissions, authType: authType, audience: audience) { [self] outcome in
                    let error: (any Error)?
                    switch outcome {
                    case .success(let token):
                        let gained = permissions.contains { token.permissions.contains(Permission($0)) }
                        if !gained { lock.withLock { refusedPermissions.formUnion(token.declinedPermissions) } }
                        apply(gained ? .permissionsGranted : .permissionsRefused, token: token)
                        error = state.isClosed ? SessionError.sessionClosed : nil
                    case .cancelled:
                        apply(.permissionsRefused)
                        error = SessionError.loginCancelled
                    case .failed(let failure):
                        apply(.permissionsRefused)
                        error = failure
                    }
                    completion?(self, error)
                }
            })
        if let refusal = actions.rejection { completion?(self, refusal) }
    }

    // MARK: Refresh

    /// Extends the token through the ``tokenRefresher``: `openTokenExtended` with the new token.
    /// A failed refresh leaves the session as it was and reports the error.
    public func refresh(completion: RequestCompletion?) {
        let actions = apply(
            .refreshRequested,
            unless: {
                state.isOpen && (tokenRefresher == nil || accessToken == nil) ? .noTokenRefresher : nil
            },
            then: { actions in
                guard actions.contains(.refreshToken), let refresher = tokenRefresher, let current = accessToken else {
                    return
                }
                operationsInFlight += 1
                Task { [self] in
                    let result: Result<AccessToken, any Error>
                    do { result = .success(try await refresher.refresh(current)) } catch { result = .failure(error) }
                    lock.withLock { operationsInFlight -= 1 }
                    switch result {
                    case .success(let token):
                        apply(.refreshed, token: token)
                        completion?(self, state.isClosed ? SessionError.sessionClosed : nil)
                    case .failure(let error):
                        completion?(self, error)
                    }
                }
            })
        if let refusal = actions.rejection { completion?(self, refusal) }
    }

    public func refresh() async throws {
        try await withRequestCompletion { refresh(completion: $0) }
    }

    // MARK: Closing

    /// Closes the session and keeps the cached token for the next launch. A closed session never reopens.
    public func close() {
        apply(.close)
    }

    /// Closes the session and deletes the cached tokens (logging out): the next launch finds none.
    public func closeAndClearTokenInformation() {
        apply(.closeAndClear)
    }

    // MARK: Helpers

    /// Runs the dialog in a task; `finish` gets the outcome after the session's bookkeeping.
    /// Called under the lock, so the dialog starts atomically with the transition that asked for it.
    private func runLogin(
        permissions: [String], authType: String?, audience: DefaultAudience,
        provider override: (any SessionLoginProviding)? = nil,
        finish: @escaping @Sendable (SessionLoginOutcome) -> Void
    ) {
        guard let provider = override ?? loginProvider else {
            // Callers refuse earlier; still report asynchronously, never from under the lock.
            Task { finish(.failed(SessionError.noLoginProvider)) }
            return
        }
        lock.withLock {
            operationsInFlight += 1
            loginTask = Task { [self] in
                let outcome = await provider.logIn(
                    permissions: permissions, authType: authType, defaultAudience: audience)
                lock.withLock {
                    operationsInFlight -= 1
                    loginTask = nil
                }
                finish(outcome)
            }
        }
    }

    private func withRequestCompletion(_ start: (@escaping RequestCompletion) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            start { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}
