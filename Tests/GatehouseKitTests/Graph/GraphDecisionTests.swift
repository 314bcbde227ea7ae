import Foundation
@testable import GatehouseKit
import GatehouseProtocol
import Testing

/// The pure parts of the Graph layer: token choice, batch body and reply, invalidation, parameters.
@Suite struct GraphDecisionTests {
    let resolver = GraphTokenResolver(appID: "1234", clientToken: "ct", currentToken: "current")

    @Test func tokenChoiceFollowsFacebooksOrder() throws {
        #expect(
            try resolver.choose(tokenString: "explicit", parameterToken: "param", flags: [])
                == .init(token: "explicit", source: .request))
        #expect(
            try resolver.choose(tokenString: nil, parameterToken: "param", flags: [])
                == .init(token: "param", source: .parameter))
        #expect(
            try resolver.choose(tokenString: "", parameterToken: nil, flags: [])
                == .init(token: "current", source: .current))
        var anonymous = resolver
        anonymous.currentToken = nil
        #expect(
            try anonymous.choose(tokenString: nil, parameterToken: nil, flags: [])
                == .init(token: "1234|ct", source: .client))
        #expect(
            try anonymous.choose(tokenString: nil, parameterToken: nil, flags: .skipClientToken)
                == .init(token: nil, source: .none))
        anonymous.clientToken = nil
        #expect(throws: CoreError.self) { try anonymous.choose(tokenString: nil, parameterToken: nil, flags: []) }
        #expect(resolver.isClientToken("1234|ct"))
        #expect(!resolver.isClientToken("current"))
        #expect(!resolver.isClientToken(nil))
    }

    @Test func batchBodyCarriesPerEntryTokensOnlyWhenTheyDiffer() {
        let entries = [
            GraphBatch.Entry(
                method: .get, path: "1234", parameters: ["fields": "name"], token: "1234|ct", version: "v27.0",
                batchParameters: [:]),
            GraphBatch.Entry(
                method: .post, path: "me/feed", parameters: ["message": "hi there"], token: "user", version: "v27.0",
                batchParameters: ["name": "post"]),
            GraphBatch.Entry(
                method: .delete, path: "me/permissions/email", parameters: [:], token: "user", version: "v20.0",
                batchParameters: ["depends_on": "post", "omit_response_on_success": false]),
        ]
        let body = GraphBatch.body(
            for: entries, batchVersion: "v27.0", appID: "1234", isClientToken: resolver.isClientToken)
        #expect(body.accessToken == "user")
        #expect(
            body.entries == [
                [
                    "method": "GET",
                    "relative_url": "1234?access_token=1234%7Cct&fields=name&format=json&include_headers=false&sdk=ios",
                ],
                [
                    "method": "POST",
                    "relative_url": "me/feed?format=json&include_headers=false&message=hi+there&sdk=ios",
                    "name": "post",
                ],
                [
                    "method": "DELETE",
                    "relative_url": "v20.0/me/permissions/email?format=json&include_headers=false&sdk=ios",
                    "depends_on": "post", "omit_response_on_success": false,
                ],
            ])
        #expect(body.formParameters["batch_app_id"] == "1234")
        #expect(body.formParameters["access_token"] == "user")
        #expect(body.formParameters["batch"] == JSONValue.array(body.entries).serialized())

        let anonymous = GraphBatch.body(
            for: [entries[0], entries[0]], batchVersion: "v27.0", appID: nil, isClientToken: resolver.isClientToken)
        #expect(anonymous.accessToken == nil)
        #expect(anonymous.formParameters.keys.sorted() == ["batch"])
    }

    @Test func batchReplyIsSplitInOrder() throws {
        let reply: JSONValue = [
            ["code": 200, "headers": [], "body": #"{"id":"1"}"#],
            nil,
            ["code": 400, "body": #"{"error":{"message":"bad","type":"OAuthException","code":100}}"#],
            ["code": 200, "body": "true"],
            ["code": 200, "body": "plain text"],
        ]
        let outcomes = GraphBatch.split(statusCode: 200, json: reply, count: 5)
        #expect(outcomes[0].result == ["id": "1"])
        #expect(outcomes[1].result == nil && outcomes[1].error == nil)
        let error = try #require(outcomes[2].error as? GraphAPIError)
        #expect(error.code == 100 && error.httpStatusCode == 400 && error.message == "bad")
        #expect(outcomes[3].result == true)
        #expect(outcomes[4].result == ["FACEBOOK_NON_JSON_RESULT": "plain text"])

        let mismatch = GraphBatch.split(statusCode: 200, json: [nil], count: 2)
        #expect(mismatch.map { ($0.error as? CoreError)?.code } == [.protocolMismatch, .protocolMismatch])
        let topLevel = GraphBatch.split(
            statusCode: 400, json: ["error": ["message": "Invalid", "code": 190]], count: 2)
        #expect(topLevel.map { ($0.error as? GraphAPIError)?.code } == [190, 190])
        let notJSON = GraphBatch.split(statusCode: 502, json: nil, count: 1)
        #expect((notJSON[0].error as? CoreError)?.code == .protocolMismatch)
        #expect((GraphReply.outcome(statusCode: 200, data: Data([0xff, 0xfe])).error as? CoreError)?.code == .unknown)
    }

    @Test func invalidationOnlyForTheCurrentTokensOwnAuthErrors() {
        func error(_ code: Int, _ subcode: Int? = nil) -> GraphAPIError {
            GraphAPIError(code: code, subcode: subcode, message: "m", httpStatusCode: 400, body: [:])
        }
        #expect(
            TokenInvalidation.action(for: error(190, 460), requestToken: "t", currentToken: "t", flags: [])
                == .clearCurrent)
        #expect(
            TokenInvalidation.action(for: error(102), requestToken: "t", currentToken: "t", flags: []) == .clearCurrent)
        #expect(
            TokenInvalidation.action(for: error(190, 493), requestToken: "t", currentToken: "t", flags: [])
                == .expireCurrent)
        #expect(TokenInvalidation.action(for: error(190), requestToken: "t", currentToken: "u", flags: []) == .none)
        #expect(TokenInvalidation.action(for: error(190), requestToken: nil, currentToken: nil, flags: []) == .none)
        #expect(
            TokenInvalidation.action(
                for: error(190), requestToken: "t", currentToken: "t", flags: .doNotInvalidateTokenOnError) == .none)
        #expect(TokenInvalidation.action(for: error(200), requestToken: "t", currentToken: "t", flags: []) == .none)
        #expect(
            TokenInvalidation.action(for: CoreError(.network), requestToken: "t", currentToken: "t", flags: []) == .none
        )
    }

    @Test func parametersBecomeWireStrings() {
        #expect(GraphParameterEncoding.string(for: "a b") == "a b")
        #expect(GraphParameterEncoding.string(for: true) == "true")
        #expect(GraphParameterEncoding.string(for: 42) == "42")
        #expect(GraphParameterEncoding.string(for: 2.0) == "2")
        #expect(GraphParameterEncoding.string(for: 2.5) == "2.5")
        #expect(
            GraphParameterEncoding.string(for: ["b": 1, "a": [true, "x"]] as [String: Any])
                == #"{"a":[true,"x"],"b":1}"#)
        let split = GraphParameterEncoding.components(graphPath: "/me?fields=id&limit=5", parameters: ["limit": 10])
        #expect(split.path == "me")
        #expect(split.parameters == ["fields": "id", "limit": "5"])
    }

    @Test func jsonRoundTripsThroughFoundationObjects() throws {
        let json: JSONValue = ["id": "1", "n": 3, "d": 1.5, "ok": false, "none": nil, "list": [1, "two"]]
        let object = try #require(json.foundationObject as? [String: Any])
        #expect(object["id"] as? String == "1")
        #expect(object["n"] as? Int == 3)
        #expect(object["d"] as? Double == 1.5)
        #expect(object["ok"] as? Bool == false)
        #expect(object["none"] is NSNull)
        #expect((object["list"] as? [Any])?.count == 2)
        #expect(
            JSONValue(foundationObject: object) == [
                "d": 1.5, "id": "1", "list": [1, "two"], "n": 3, "none": nil, "ok": false,
            ])
    }
}
