import Foundation
import GatehouseProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The network side of `GraphRequestConnection`: one round of HTTP, then recovery, invalidation and
/// delivery. The decisions themselves live in `GraphTokenResolver`, `GraphBatch`, `GraphRecoveryPolicy`,
/// `TokenInvalidation` and `TokenRefreshPolicy`.
extension GraphRequestConnection {
    /// One request as sent: its outcome and the token it went with.
    struct Sent: Sendable {
        var outcome: GraphOutcome
        var token: String?
        var isClientToken: Bool
    }

    func run() async {
        if let delegate = delegate {
            await MainActor.run { delegate.requestConnectionWillBeginLoading(self) }
        }
        var entries = addedEntries
        let addedCount = entries.count
        if !skipsPiggyback, !entries.isEmpty, let refresh = piggybackEntries(for: entries) { entries += refresh }

        var (sent, networkError) = await execute(
            entries.map(\.request), batchParameters: entries.map(\.batchParameters))
        sent = await recover(entries: entries, sent: sent)
        for (entry, item) in zip(entries, sent) {
            guard let error = item.outcome.error else { continue }
            TokenInvalidation.action(
                for: error, requestToken: item.token, currentToken: environment.currentAccessToken?.tokenString,
                flags: entry.request.flags
            ).apply(in: environment, cause: error)
        }
        guard finishIfRunning() else { return }
        // The refresh settles first, so completions already see the refreshed `AccessToken.current`.
        let items = Array(zip(entries, sent.map(\.outcome)))
        await Self.deliver(
            Array(items[addedCount...] + items[..<addedCount]), connection: self, networkError: networkError)
    }

    /// Sends `requests` as one call (one request) or one batch (several). Requests without a usable
    /// token fail locally and are left out of the call.
    func execute(_ requests: [GraphRequest], batchParameters: [JSONObject]) async -> (
        sent: [Sent], networkError: (any Error)?
    ) {
        let settings = environment.settings
        let resolver = GraphTokenResolver(
            appID: settings.appID, clientToken: settings.clientToken,
            currentToken: environment.currentAccessToken?.tokenString)
        var sent: [Sent] = []
        var wire: [(index: Int, entry: GraphBatch.Entry)] = []
        for (index, request) in requests.enumerated() {
            var (path, parameters) = request.wireComponents
            do {
                let choice = try resolver.choose(
                    tokenString: request.tokenString, parameterToken: parameters["access_token"],
                    flags: request.flags)
                parameters["access_token"] = nil
                sent.append(Sent(outcome: GraphOutcome(), token: choice.token, isClientToken: choice.source == .client))
                wire.append(
                    (
                        index,
                        GraphBatch.Entry(
                            method: request.httpMethod, path: path, parameters: parameters, token: choice.token,
                            version: request.version, batchParameters: batchParameters[index])
                    ))
            } catch {
                sent.append(Sent(outcome: .failure(error), token: nil, isClientToken: false))
            }
        }
        guard !wire.isEmpty else { return (sent, nil) }

        let timeout = self.timeout
        do {
            let outcomes: [GraphOutcome]
            if wire.count == 1, let only = wire.first?.entry {
                var parameters = only.parameters
                parameters["access_token"] = only.token
                let response = try await sender.send(
                    method: only.method.rawValue, path: only.path, parameters: parameters,
                    tokenString: only.token, version: only.version, timeout: timeout)
                record(response, version: only.version, path: only.path)
                outcomes = [
                    response.json.map { GraphReply.outcome(statusCode: response.statusCode, json: $0) }
                        ?? GraphReply.outcome(statusCode: response.statusCode, data: response.data)
                ]
            } else {
                let body = GraphBatch.body(
                    for: wire.map(\.entry), batchVersion: settings.graphAPIVersion, appID: settings.appID,
                    isClientToken: resolver.isClientToken)
                let response = try await sender.send(
                    method: "POST", path: "", parameters: body.formParameters,
                    tokenString: nil, version: settings.graphAPIVersion, timeout: timeout)
                record(response, version: settings.graphAPIVersion, path: "")
                outcomes = GraphBatch.split(statusCode: response.statusCode, json: response.json, count: wire.count)
            }
            for (slot, outcome) in zip(wire, outcomes) { sent[slot.index].outcome = outcome }
            return (sent, nil)
        } catch {
            let failure: any Error = error is CancellationError || isCancelled ? URLError(.cancelled) : error
            for slot in wire { sent[slot.index].outcome = .failure(failure) }
            return (sent, failure)
        }
    }

    /// Retries the connection's single recovery-enabled request once when `GraphRecoveryPolicy` says so.
    func recover(entries: [Entry], sent: [Sent]) async -> [Sent] {
        let enabled = entries.indices.filter { !entries[$0].request.flags.contains(.disableErrorRecovery) }
        guard enabled.count == 1, let index = enabled.first, let error = sent[index].outcome.error, !isCancelled else {
            return sent
        }
        let request = entries[index].request
        let attempter = environment.loginAttempter
        let policy = GraphRecoveryPolicy(recoveryEnabledCount: enabled.count, attempterInstalled: attempter != nil)
        let action = policy.action(
            for: error, flags: request.flags, requestToken: sent[index].token,
            current: environment.currentAccessToken, isClientToken: sent[index].isClientToken)
        let retry: GraphRequest
        switch action {
        case .none:
            return sent
        case .retry:
            retry = GraphRequest(
                graphPath: request.graphPath, parameters: request.parameters, tokenString: request.tokenString,
                version: request.version, httpMethod: request.httpMethod,
                flags: request.flags.union(.disableErrorRecovery))
        case .attemptLogin(let permissions):
            guard let attempter, let graphError = error as? GraphAPIError,
                await attempter.attemptRecovery(from: graphError, permissions: permissions), !isCancelled
            else { return sent }
            retry = GraphRequest(
                graphPath: request.graphPath, parameters: request.parameters,
                tokenString: environment.currentAccessToken?.tokenString, version: request.version,
                httpMethod: request.httpMethod, flags: request.flags.union(.disableErrorRecovery))
        }
        var result = sent
        result[index] = await execute([retry], batchParameters: [entries[index].batchParameters]).sent[0]
        return result
    }

    /// The refresh pair, when the current token is stale and this environment has not tried within the hour.
    /// Only connections whose requests all use the default version carry it, as in Facebook's SDK.
    func piggybackEntries(for entries: [Entry]) -> [Entry]? {
        let settings = environment.settings
        guard let appID = settings.appID, !appID.isEmpty, let token = environment.currentAccessToken,
            entries.allSatisfy({ $0.request.version == settings.graphAPIVersion }),
            TokenRefreshAttempts.shared.claimRefresh(for: token, in: environment)
        else { return nil }
        return TokenRefresher(environment: environment, token: token).entries { _ in }
    }

    private func record(_ response: GraphHTTPResponse, version: String, path: String) {
        var base = environment.settings.serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let url =
            URL(string: base + "/" + (version.isEmpty ? "" : version + "/") + path) ?? environment.settings.serverURL
        urlResponse = HTTPURLResponse(
            url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: response.headers)
    }
}
