import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// Replies from a script instead of the network, and records what was sent.
final class GraphScriptedSender: GraphSending, @unchecked Sendable {
    struct Call: Equatable {
        var method: String; var path: String; var parameters: [String: String]; var version: String?
    }
    private let lock = NSLock()
    private var replies: [(Int, JSONValue)]
    private var _calls: [Call] = []

    init(_ replies: [(Int, JSONValue)]) { self.replies = replies }

    var calls: [Call] { lock.withLock { _calls } }

    func send(
        method: String, path: String, parameters: [String: String], tokenString: String?, version: String?,
        timeout: TimeInterval
    ) async throws -> GraphHTTPResponse {
        let (status, json) = lock.withLock {
            _calls.append(Call(method: method, path: path, parameters: parameters, version: version))
            return replies.removeFirst()
        }
        return GraphHTTPResponse(statusCode: status, headers: [:], json: json, data: json.serializedData())
    }
}

extension GraphSerialTests {
    /// The connection's orchestration (recovery, invalidation, batch replies) with a scripted server.
    @Suite struct ScriptedConnection {
        let environment: GatehouseKitEnvironment
        let token = AccessToken(
            tokenString: "user-token", permissions: ["email", "public_profile"], declinedPermissions: [],
            expiredPermissions: [], appID: "1234", userID: "42", expirationDate: Date() + 3600,
            refreshDate: Date(), dataAccessExpirationDate: nil)

        init() {
            let settings = Settings()
            settings.appID = "1234"
            settings.clientToken = "client"
            environment = GatehouseKitEnvironment(settings: settings)
            GatehouseKitEnvironment.current = environment
            ErrorRecovery.loginAttempter = nil
            environment.setCurrentAccessToken(token)
        }

        private func connection(_ replies: [(Int, JSONValue)]) -> (GraphRequestConnection, GraphScriptedSender) {
            let connection = GraphRequestConnection()
            let sender = GraphScriptedSender(replies)
            connection.sender = sender
            return (connection, sender)
        }

        static let transient: JSONValue = [
            "error": [
                "message": "An unexpected error has occurred. Please retry your request later.",
                "type": "OAuthException", "code": 2, "is_transient": true,
            ]
        ]
        static func oauth(_ code: Int, subcode: Int? = nil) -> JSONValue {
            var error: JSONObject = [
                "message": "Error validating access token", "type": "OAuthException", "code": .int(Int64(code)),
            ]
            if let subcode { error["error_subcode"] = .int(Int64(subcode)) }
            return ["error": .object(error)]
        }

        @Test func transientErrorIsRetriedOnce() async throws {
            let (connection, sender) = connection([(500, Self.transient), (200, ["id": "42"])])
            let outcomes = await GraphTestSupport.run(
                connection, [(GraphRequest(graphPath: "me", parameters: ["fields": "id"]), nil)])
            #expect(outcomes[0].result == ["id": "42"])
            #expect(sender.calls.count == 2)
            #expect(sender.calls[0] == sender.calls[1])
            #expect(sender.calls[0].parameters == ["fields": "id", "access_token": "user-token"])

            let (again, twice) = self.connection([(500, Self.transient), (500, Self.transient)])
            let failed = await GraphTestSupport.run(
                again, [(GraphRequest(graphPath: "me", parameters: ["fields": "id"]), nil)])
            #expect((failed[0].error as? GraphAPIError)?.code == 2)
            #expect(twice.calls.count == 2)
        }

        @Test func noRetryWhenDisabledThrottledOrSeveralRequestsCouldRecover() async throws {
            let (disabled, one) = connection([(500, Self.transient)])
            _ = await GraphTestSupport.run(
                disabled, [(GraphRequest(graphPath: "me", parameters: [:], flags: .disableErrorRecovery), nil)])
            #expect(one.calls.count == 1)

            let throttled: JSONValue = [
                "error": ["message": "(#613) Calls to this api have exceeded the rate limit.", "code": 613]
            ]
            let (limited, two) = connection([(403, throttled)])
            let outcome = await GraphTestSupport.run(limited, [(GraphRequest(graphPath: "me", parameters: [:]), nil)])
            #expect(outcome[0].error.map(ErrorRecovery.category(for:)) == .throttled)
            #expect(two.calls.count == 1)

            let batchReply: JSONValue = [
                ["code": 500, "body": .string(Self.transient.serialized())],
                ["code": 500, "body": .string(Self.transient.serialized())],
            ]
            let (batch, three) = connection([(200, batchReply)])
            let both = await GraphTestSupport.run(
                batch,
                [
                    (GraphRequest(graphPath: "me", parameters: [:]), nil),
                    (GraphRequest(graphPath: "me/permissions", parameters: [:]), nil),
                ])
            #expect(both.allSatisfy { ($0.error as? GraphAPIError)?.code == 2 })
            #expect(three.calls.count == 1)
        }

        @Test func loginErrorGoesToTheAttempterAndIsRetriedWithTheNewToken() async throws {
            let attempter = GraphTokenSwappingAttempter(environment: environment)
            ErrorRecovery.loginAttempter = attempter
            defer { ErrorRecovery.loginAttempter = nil }
            let (connection, sender) = connection([(400, Self.oauth(190, subcode: 463)), (200, ["id": "42"])])
            let outcomes = await GraphTestSupport.run(
                connection, [(GraphRequest(graphPath: "me", parameters: [:]), nil)])
            #expect(outcomes[0].result == ["id": "42"])
            #expect(await attempter.calls == [["email", "public_profile"]])
            #expect(sender.calls.map { $0.parameters["access_token"] } == ["user-token", "new-token"])
            #expect(AccessToken.current?.tokenString == "new-token")

            // Never for a client token.
            environment.setCurrentAccessToken(nil)
            let (anonymous, client) = self.connection([(400, Self.oauth(190))])
            _ = await GraphTestSupport.run(anonymous, [(GraphRequest(graphPath: "1234", parameters: [:]), nil)])
            #expect(client.calls.map { $0.parameters["access_token"] } == ["1234|client"])
            #expect(await attempter.calls.count == 1)
        }

        /// The attempter belongs to its environment: a connection in a task's own environment (a test in
        /// parallel, a second account's session) never hands its login errors to the installed one's.
        @Test func anotherEnvironmentsConnectionNeverCallsThisEnvironmentsAttempter() async throws {
            let attempter = GraphTokenSwappingAttempter(environment: environment)
            ErrorRecovery.loginAttempter = attempter
            defer { ErrorRecovery.loginAttempter = nil }
            let settings = Settings()
            settings.appID = "5678"
            let other = GatehouseKitEnvironment(settings: settings)
            other.setCurrentAccessToken(
                AccessToken(
                    tokenString: "other-token", permissions: ["public_profile"], declinedPermissions: [],
                    expiredPermissions: [],
                    appID: "5678", userID: "7", expirationDate: Date() + 3600, refreshDate: Date(),
                    dataAccessExpirationDate: nil))
            let missing: JSONValue = [
                "error": [
                    "message": "(#200) Requires user_friends permission", "type": "OAuthException",
                    "code": 200,
                ]
            ]
            let (outcomes, sender) = await GatehouseKitEnvironment.$taskOverride.withValue(other) {
                #expect(ErrorRecovery.loginAttempter == nil)
                let (connection, sender) = connection([(403, missing)])
                return (
                    await GraphTestSupport.run(
                        connection, [(GraphRequest(graphPath: "me/friends", parameters: [:]), nil)]), sender
                )
            }
            #expect((outcomes[0].error as? GraphAPIError)?.code == 200)
            #expect(sender.calls.map { $0.parameters["access_token"] } == ["other-token"])
            #expect(await attempter.calls.isEmpty)
            #expect(ErrorRecovery.loginAttempter is GraphTokenSwappingAttempter)
        }

        @Test func subcode493ExpiresTheCurrentTokenInsteadOfDroppingIt() async throws {
            let (connection, _) = connection([(400, Self.oauth(190, subcode: 493))])
            _ = await GraphTestSupport.run(
                connection, [(GraphRequest(graphPath: "me", parameters: [:], flags: .disableErrorRecovery), nil)])
            let expired = try #require(AccessToken.current)
            #expect(expired.tokenString == token.tokenString)
            #expect(expired.expirationDate == .distantPast)
            #expect(expired.refreshDate == token.refreshDate)
            #expect(expired.permissions == token.permissions)
            #expect(expired.isExpired)

            // 102 drops it; another token's error leaves it alone.
            environment.setCurrentAccessToken(token)
            let (other, _) = self.connection([(400, Self.oauth(190))])
            _ = await GraphTestSupport.run(
                other,
                [
                    (
                        GraphRequest(
                            graphPath: "me", parameters: [:], tokenString: "someone-else",
                            version: nil, httpMethod: .get), nil
                    )
                ])
            #expect(AccessToken.current == token)
            let (session, _) = self.connection([(400, Self.oauth(102))])
            _ = await GraphTestSupport.run(session, [(GraphRequest(graphPath: "me", parameters: [:]), nil)])
            #expect(AccessToken.current == nil)
        }

        @Test func batchRepliesTopLevelErrorsAndMismatches() async throws {
            let (connection, sender) = connection([(400, Self.oauth(190))])
            let outcomes = await GraphTestSupport.run(
                connection,
                [
                    (
                        GraphRequest(
                            graphPath: "me", parameters: [:], tokenString: "other", version: nil, httpMethod: .get), nil
                    ),
                    (
                        GraphRequest(
                            graphPath: "1234", parameters: ["fields": "name"], tokenString: nil, version: nil,
                            httpMethod: .get), nil
                    ),
                ])
            #expect(outcomes.map { ($0.error as? GraphAPIError)?.code } == [190, 190])
            let call = try #require(sender.calls.first)
            #expect(call.method == "POST")
            #expect(call.path == "")
            #expect(call.version == "v27.0")
            #expect(call.parameters["access_token"] == "other")
            #expect(call.parameters["batch_app_id"] == "1234")
            #expect(
                call.parameters["batch"]
                    == #"[{"method":"GET","relative_url":"me?format=json&include_headers=false&sdk=ios"},"#
                    + #"{"method":"GET","relative_url":"1234?access_token=user-token&fields=name&format=json&include_headers=false&sdk=ios"}]"#
            )

            let (short, _) = self.connection([(200, [["code": 200, "body": "{}"]])])
            let mismatched = await GraphTestSupport.run(
                short,
                [
                    (GraphRequest(graphPath: "a", parameters: [:]), nil),
                    (GraphRequest(graphPath: "b", parameters: [:]), nil),
                ])
            #expect(mismatched.map { ($0.error as? CoreError)?.code } == [.protocolMismatch, .protocolMismatch])
        }

        @Test func requestsWithoutAnyTokenFailLocallyAndSkipClientTokenSendsNone() async throws {
            environment.setCurrentAccessToken(nil)
            environment.settings.clientToken = nil
            let (connection, sender) = connection([(200, ["name": "app"])])
            let outcomes = await GraphTestSupport.run(
                connection,
                [
                    (GraphRequest(graphPath: "1234", parameters: [:]), nil),
                    (GraphRequest(graphPath: "1234", parameters: ["fields": "name"], flags: .skipClientToken), nil),
                ])
            #expect((outcomes[0].error as? CoreError)?.code == .accessTokenRequired)
            #expect(outcomes[1].result == ["name": "app"])
            #expect(
                sender.calls == [.init(method: "GET", path: "1234", parameters: ["fields": "name"], version: "v27.0")])
        }

        @Test func addAfterStartFailsAndStartTwiceIsIgnored() async throws {
            let (connection, sender) = connection([(200, ["id": "1"])])
            let outcomes = await GraphTestSupport.run(
                connection, [(GraphRequest(graphPath: "me", parameters: [:]), nil)])
            #expect(outcomes[0].result == ["id": "1"])
            connection.start()
            let late = await withCheckedContinuation { continuation in
                connection.add(GraphRequest(graphPath: "me")) { _, _, error in continuation.resume(returning: error) }
            }
            #expect((late as? CoreError)?.code == .invalidArgument)
            #expect(sender.calls.count == 1)
        }
    }
}

/// Pretends to log in again: installs `new-token` with the old token's permissions.
actor GraphTokenSwappingAttempter: GraphErrorRecoveryAttempting {
    let environment: GatehouseKitEnvironment
    var calls: [[String]] = []
    init(environment: GatehouseKitEnvironment) { self.environment = environment }

    func attemptRecovery(from error: GraphAPIError, permissions: [String]) async -> Bool {
        calls.append(permissions)
        environment.setCurrentAccessToken(
            AccessToken(
                tokenString: "new-token", permissions: permissions, declinedPermissions: [], expiredPermissions: [],
                appID: "1234",
                userID: "42", expirationDate: nil, refreshDate: Date(), dataAccessExpirationDate: nil))
        return true
    }
}
