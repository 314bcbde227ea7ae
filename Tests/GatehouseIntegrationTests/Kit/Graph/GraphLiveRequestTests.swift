import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LiveGraphSerialTests {
    /// `GraphRequest` and `GraphRequestConnection` against a real `gatehouse serve`.
    @Suite struct LiveRequests {
        @Test func getMeWithFieldsAsFoundationObjectsAndJSON() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token
            let alice = server.users[0]

            let result = try await GraphRequest(graphPath: "me", parameters: ["fields": "id,name,email"]).start()
            let object = try #require(result as? [String: Any])
            #expect(object["id"] as? String == token.userID)
            #expect(object["name"] as? String == alice.name)
            #expect(object["email"] as? String == alice.email)

            let json = try await GraphRequest(graphPath: "me?fields=email,name").startJSON()
            #expect(json == ["email": .string(alice.email), "name": .string(alice.name)])

            // `init(graphPath:)` sends `fields=""`: the server's default id and name.
            let (plain, error) = await GraphTestSupport.complete(GraphRequest(graphPath: "me"))
            #expect(error == nil)
            let plainObject = try #require(plain as? [String: Any])
            #expect(plainObject.keys.sorted() == ["id", "name"])
        }

        @Test func postCreatesAndDeleteRemovesWithAnAppToken() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let appToken = "\(server.appID)|\(server.appSecret)"

            let created = try await GraphRequest(
                graphPath: "\(server.appID)/accounts/test-users",
                parameters: ["installed": true, "permissions": "email"],
                tokenString: appToken, version: nil, httpMethod: .post
            ).startJSON()
            let userID = try #require(created["id"]?.stringValue)
            let userToken = try #require(created["access_token"]?.stringValue)
            #expect(created["email"]?.stringValue?.hasSuffix("@tfbnw.net") == true)

            let permissions = try await GraphRequest(
                graphPath: "me/permissions", parameters: [:], tokenString: userToken,
                version: nil, httpMethod: .get
            ).startJSON()
            #expect(
                permissions == [
                    "data": [
                        ["permission": "public_profile", "status": "granted"],
                        ["permission": "email", "status": "granted"],
                    ]
                ])

            let revoked = try await GraphRequest(
                graphPath: "me/permissions/email", parameters: [:], tokenString: userToken,
                version: nil, httpMethod: .delete
            ).startJSON()
            #expect(revoked == ["success": true])
            let after = try await GraphRequest(
                graphPath: "me/permissions", parameters: [:], tokenString: userToken,
                version: nil, httpMethod: .get
            ).startJSON()
            #expect(
                after == [
                    "data": [
                        ["permission": "public_profile", "status": "granted"],
                        ["permission": "email", "status": "declined"],
                    ]
                ])

            let deleted = try await GraphRequest(
                graphPath: userID, parameters: [:], tokenString: appToken, version: nil,
                httpMethod: .delete
            ).startJSON()
            #expect(deleted == ["success": true])
        }

        @Test func withoutAUserTokenTheClientTokenIsUsed() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            let environment = GraphTestSupport.install(server)
            #expect(AccessToken.current == nil)

            // The app node answers a client token…
            let app = try await GraphRequest(graphPath: server.appID).startJSON()
            #expect(app == ["name": "Gatehouse Demo", "id": .string(server.appID)])
            // …`me` needs a person.
            do {
                _ = try await GraphRequest(graphPath: "me").startJSON()
                Issue.record("me answered a client token")
            } catch let error as GraphAPIError {
                #expect(error.code == 2500)
                #expect(
                    error.message == "An active access token must be used to query information about the current user.")
                #expect(error.httpStatusCode == 400)
            }
            // `.skipClientToken` sends no token at all, which the server refuses with 104.
            do {
                _ = try await GraphRequest(graphPath: server.appID, parameters: ["fields": ""], flags: .skipClientToken)
                    .startJSON()
                Issue.record("answered without a token")
            } catch let error as GraphAPIError {
                #expect(error.code == 104)
                #expect(error.message == "An access token is required to request this resource.")
            }
            // No client token configured: a local error, Facebook's exception.
            environment.settings.clientToken = nil
            await #expect(
                throws: CoreError(
                    .accessTokenRequired,
                    message:
                        "No access token: log in, pass a token, or configure Settings.appID and Settings.clientToken for anonymous calls"
                )
            ) {
                try await GraphRequest(graphPath: server.appID).startJSON()
            }
        }

        @Test func batchOfThreeWithOneFailingEntry() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token

            let connection = GraphRequestConnection()
            let delegate = GraphRecordingDelegate()
            connection.delegate = delegate
            let outcomes = await GraphTestSupport.run(
                connection,
                [
                    (GraphRequest(graphPath: "me", parameters: ["fields": "id"]), nil),
                    (GraphRequest(graphPath: "me", parameters: ["fields": "id,bogus"]), nil),
                    (GraphRequest(graphPath: "me/permissions"), nil),
                ])
            #expect(outcomes.count == 3)
            #expect(outcomes[0].result == ["id": .string(token.userID)])
            let error = try #require(outcomes[1].error as? GraphAPIError)
            #expect(error.code == 100)
            #expect(error.httpStatusCode == 400)
            #expect(error.message == "(#100) Tried accessing nonexisting field (bogus) on node type (User)")
            #expect(outcomes[2].result?["data"]?.arrayValue?.count == 3)
            #expect(connection.urlResponse?.statusCode == 200)
            #expect(connection.urlResponse?.url?.absoluteString == server.baseURL.absoluteString + "/v27.0/")
            #expect(await delegate.events == ["willBegin", "didFinish"])
        }

        @Test func dependsOnFeedsOneEntryIntoTheNext() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            AccessToken.current = try await GraphTestSupport.logIn(server, user: 1)

            let outcomes = await GraphTestSupport.run(
                GraphRequestConnection(),
                [
                    (GraphRequest(graphPath: "me", parameters: ["fields": "id"]), ["name": "self"]),
                    (
                        GraphRequest(graphPath: "{result=self:$.id}", parameters: ["fields": "name"]),
                        ["depends_on": "self"]
                    ),
                ])
            // The server omits a depended-on entry's reply: no result and no error.
            #expect(outcomes[0].result == nil)
            #expect(outcomes[0].error == nil)
            #expect(outcomes[1].result == ["name": .string(server.users[1].name)])
        }

        @Test func unknownFieldIsATypedGraphError() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token
            do {
                _ = try await GraphRequest(graphPath: "me", parameters: ["fields": "id,bogus"]).start()
                Issue.record("no error")
            } catch let error as GraphAPIError {
                let message = "(#100) Tried accessing nonexisting field (bogus) on node type (User)"
                #expect(
                    error
                        == GraphAPIError(
                            code: 100, type: "OAuthException", message: message, httpStatusCode: 400,
                            body: ["error": ["message": .string(message), "type": "OAuthException", "code": 100]]))
                #expect(ErrorRecovery.category(for: error) == .other)
                #expect(!ErrorRecovery.shouldNotifyUser(for: error))
            }
            #expect(AccessToken.current == token)
        }
    }
}
