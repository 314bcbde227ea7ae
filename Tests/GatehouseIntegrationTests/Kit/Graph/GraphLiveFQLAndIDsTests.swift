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
    /// Seed 002's FQL call in its REST form, and reading several objects with `?ids=`, against a real server.
    @Suite struct LiveFQLAndIDs {
        @Test func seedQueryInBothFQLForms() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token
            let query = "SELECT quotes, uid, name, pic FROM user WHERE uid = me()"

            let rest = try await GraphRequest(restFQLQuery: query).startJSON()
            let rows = try #require(rest.arrayValue)
            #expect(rows.count == 1)
            #expect(rows.first?["uid"]?.stringValue == token.userID)
            #expect(rows.first?["name"]?.stringValue == server.users[0].name)
            #expect(rows.first?.objectValue?.keys == ["quotes", "uid", "name", "pic"])

            let graph = try await GraphRequest(fqlQuery: query).startJSON()
            #expect(graph["data"] == rest)
        }

        @Test func restFQLErrorsAreFacebooks() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            AccessToken.current = try await GraphTestSupport.logIn(server)
            await #expect(throws: GraphAPIError.self) {
                try await GraphRequest(restFQLQuery: "SELECT nope FROM user WHERE uid = me()").startJSON()
            }
            do {
                _ = try await GraphRequest(restFQLQuery: "SELECT nope FROM user WHERE uid = me()").startJSON()
            } catch let error as GraphAPIError {
                #expect(error.code == 602)
            }
        }

        @Test func severalObjectsKeyedByID() async throws {
            let server = try await LiveServer()
            defer { server.stop() }
            GraphTestSupport.install(server)
            let token = try await GraphTestSupport.logIn(server)
            AccessToken.current = token
            let both = try await GraphRequest(
                graphPath: "", parameters: ["ids": "\(token.userID),\(server.appID)", "fields": "id,name"],
                tokenString: token.tokenString, version: nil, httpMethod: .get
            ).startJSON()
            #expect(both.objectValue?.keys == [token.userID, server.appID])
            #expect(both[token.userID]?["name"]?.stringValue == server.users[0].name)
            #expect(both[server.appID]?["id"]?.stringValue == server.appID)

            // The root without a version answers the same.
            var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
            components.path = "/"
            components.queryItems = [
                URLQueryItem(name: "ids", value: token.userID), URLQueryItem(name: "fields", value: "id"),
                URLQueryItem(name: "access_token", value: token.tokenString),
            ]
            let (data, response) = try await URLSession.shared.data(from: components.url!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let expected = JSONValue.object(
                JSONObject([(token.userID, JSONValue.object(JSONObject([("id", .string(token.userID))])))]))
            #expect(try JSONValue.parse(data) == expected)

            // Unknown ids (and ids the caller may not see) fail the call with (#803).
            do {
                _ = try await GraphRequest(
                    graphPath: "", parameters: ["ids": "\(token.userID),99999999999", "fields": "id"],
                    tokenString: token.tokenString, version: nil, httpMethod: .get
                ).startJSON()
                Issue.record("expected (#803)")
            } catch let error as GraphAPIError {
                #expect(error.code == 803)
                #expect(error.message == "(#803) Some of the aliases you requested do not exist: 99999999999")
            }
        }
    }
}
