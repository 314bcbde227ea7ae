import Foundation
import Testing
import GatehouseCore
import GatehouseProtocol

@Suite("Webhook payloads, batches and signatures")
struct WebhookPayloadTests {
    let time = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func userAndPermissionsEntriesHaveFacebooksShape() {
        let user = WebhookPayload.body(.user, WebhookEntry(scopedID: "42", time: time, changedFields: ["email"]))
        #expect(
            user == #"{"object":"user","entry":[{"id":"42","uid":"42","time":1800000000,"changed_fields":["email"]}]}"#)
        let permissions = WebhookPayload.body(
            .permissions, WebhookEntry(scopedID: "42", time: time, changes: [("email", "granted")]))
        #expect(
            permissions
                == #"{"object":"permissions","entry":[{"id":"42","uid":"42","time":1800000000,"#
                + #""changes":[{"field":"email","value":{"verb":"granted"}}]}]}"#)
    }

    @Test func aBatchMergesOnePersonsChangesAndAppendsOthers() throws {
        var body = WebhookPayload.body(.user, WebhookEntry(scopedID: "1", time: time, changedFields: ["email"]))
        body = try #require(
            WebhookPayload.appending(
                WebhookEntry(scopedID: "1", time: time + 1, changedFields: ["name", "email"]), to: body, .user))
        body = try #require(
            WebhookPayload.appending(
                WebhookEntry(scopedID: "2", time: time + 1, changedFields: ["name"]), to: body, .user))
        #expect(
            body
                == #"{"object":"user","entry":[{"id":"1","uid":"1","time":1800000001,"changed_fields":["email","name"]},"#
                + #"{"id":"2","uid":"2","time":1800000001,"changed_fields":["name"]}]}"#)
        #expect(WebhookPayload.entryCount(body) == 2)
    }

    @Test func aFullBatchTakesNoMoreEntries() throws {
        var body = WebhookPayload.body(.user, WebhookEntry(scopedID: "0", time: time, changedFields: ["name"]))
        for i in 1..<WebhookPayload.maximumEntries {
            body = try #require(
                WebhookPayload.appending(
                    WebhookEntry(scopedID: "\(i)", time: time, changedFields: ["name"]), to: body, .user))
        }
        #expect(WebhookPayload.entryCount(body) == 1000)
        #expect(
            WebhookPayload.appending(
                WebhookEntry(scopedID: "new", time: time, changedFields: ["name"]), to: body, .user)
                == nil)
        // The same person's entry still merges into a full batch.
        #expect(
            WebhookPayload.appending(WebhookEntry(scopedID: "7", time: time, changedFields: ["email"]), to: body, .user)
                != nil)
    }

    /// RFC 2104 test vectors as published for HMAC-SHA256 and HMAC-SHA1 ("key", the quick brown fox).
    @Test func signaturesAreHexHMACsOfTheExactBody() {
        let body = "The quick brown fox jumps over the lazy dog"
        #expect(
            WebhookPayload.signature256(body: body, secret: "key")
                == "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(WebhookPayload.signature1(body: body, secret: "key") == "sha1=de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9")
    }

    @Test func userChangesListTheWebhookFieldsThatMovedAndOnlyThoseTheAppMaySee() {
        let old = UserRecord(
            id: "1", email: "a@example.com", passwordHash: "x", firstName: "Ann", lastName: "Lee",
            createdAt: time)
        var new = old
        new.email = "b@example.com"
        new.middleName = "Marie"
        new.passwordHash = "y"  // not a field: never announced
        #expect(WebhookUserChanges.changedFields(from: old, to: new) == ["email", "name"])
        #expect(WebhookUserChanges.visible(["email", "name"], granted: ["public_profile"]) == ["name"])
        #expect(
            WebhookUserChanges.visible(["email", "name"], granted: ["public_profile", "email"]) == ["email", "name"])
        var pictured = old
        pictured.picture = Data([1, 2, 3])
        #expect(WebhookUserChanges.changedFields(from: old, to: pictured) == ["picture"])
    }

    @Test func objectsAcceptTheirFields() {
        #expect(WebhookObject.user.accepts(field: "email"))
        #expect(WebhookObject.user.accepts(field: "permissions") == false)
        #expect(WebhookObject.permissions.accepts(field: "connected"))
        #expect(WebhookObject.permissions.accepts(field: "user_birthday"))
        #expect(WebhookObject.permissions.accepts(field: "bogus") == false)
        #expect(WebhookObject.names == "user, permissions")
    }
}
