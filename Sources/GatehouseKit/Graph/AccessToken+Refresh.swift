import Foundation
import GatehouseProtocol

extension AccessToken {
    /// Extends the current token and re-reads its permissions in one batch, then makes the result
    /// `AccessToken.current` (unless `current` changed meanwhile). Facebook's `refreshCurrentAccessToken(completion:)`.
    ///
    /// The completion runs on the main actor with the refreshed `AccessToken` as its result, or with
    /// `CoreError(.accessTokenRequired)` when there is no current token, or the extend call's error.
    public static func refreshCurrentAccessToken(completion: GraphRequestCompletion? = nil) {
        let environment = GatehouseKitEnvironment.current
        guard let token = environment.currentAccessToken else {
            if let completion {
                Task { @MainActor in
                    completion(nil, nil, CoreError(.accessTokenRequired, message: "No current access token to refresh"))
                }
            }
            return
        }
        let connection = GraphRequestConnection(environment: environment)
        connection.skipsPiggyback = true
        TokenRefreshAttempts.shared.record(environment.clock.now(), in: environment)
        let entries = TokenRefresher(environment: environment, token: token).entries { result in
            guard let completion else { return }
            await MainActor.run {
                switch result {
                case .success(let refreshed): completion(connection, refreshed, nil)
                case .failure(let error): completion(connection, nil, error)
                }
            }
        }
        for entry in entries { connection.append(entry) }
        connection.start()
    }

    /// The async form of `refreshCurrentAccessToken(completion:)`: the refreshed token.
    public static func refreshCurrentAccessToken() async throws -> AccessToken {
        let environment = GatehouseKitEnvironment.current
        guard let token = environment.currentAccessToken else {
            throw CoreError(.accessTokenRequired, message: "No current access token to refresh")
        }
        let connection = GraphRequestConnection(environment: environment)
        connection.skipsPiggyback = true
        TokenRefreshAttempts.shared.record(environment.clock.now(), in: environment)
        let result: Result<AccessToken, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                for entry in TokenRefresher(environment: environment, token: token).entries({
                    continuation.resume(returning: $0)
                }) {
                    connection.append(entry)
                }
                connection.start()
            }
        } onCancel: {
            connection.cancel()
        }
        return try result.get()
    }
}

/// The refresh pair as connection entries, and what happens when both replies are in.
struct TokenRefresher: Sendable {
    let environment: GatehouseKitEnvironment
    /// The token being refreshed; the result replaces `current` only if `current` is still this token.
    let token: AccessToken

    /// Two entries (extend, permissions); `finished` is called once, after the second.
    func entries(_ finished: @escaping @Sendable (Result<AccessToken, any Error>) async -> Void)
        -> [GraphRequestConnection.Entry]
    {
        let extendOutcome = OutcomeBox()
        let version = environment.settings.graphAPIVersion
        let extend = GraphRequestConnection.Entry(
            request: TokenRefreshPolicy.extendRequest(for: token, version: version), batchParameters: [:],
            delivery: .handler { extendOutcome.value = $0 })
        let permissions = GraphRequestConnection.Entry(
            request: TokenRefreshPolicy.permissionsRequest(for: token, version: version), batchParameters: [:],
            delivery: .handler { outcome in await finished(finish(extend: extendOutcome.value, permissions: outcome)) })
        return [extend, permissions]
    }

    func finish(extend: GraphOutcome?, permissions: GraphOutcome) -> Result<AccessToken, any Error> {
        if let error = extend?.error { return .failure(error) }
        let refreshed = TokenRefreshPolicy.merge(
            token, extendResult: extend?.result,
            permissionsResult: permissions.error == nil ? permissions.result : nil,
            now: environment.clock.now())
        if environment.currentAccessToken == token { environment.setCurrentAccessToken(refreshed) }
        return .success(refreshed)
    }

    /// Holds the extend outcome until the permissions outcome arrives (handlers run one after another).
    final class OutcomeBox: @unchecked Sendable {
        private let lock = NSLock()
        private var _value: GraphOutcome?
        var value: GraphOutcome? {
            get { lock.withLock { _value } }
            set { lock.withLock { _value = newValue } }
        }
    }
}
