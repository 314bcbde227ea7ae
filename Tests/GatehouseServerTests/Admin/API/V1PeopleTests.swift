import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `/admin/api/v1/people` and friendships.
@Suite struct V1PeopleTests {
    static let daraBody =
        #"{"id":"100000000000042","email":"dara@example.com","password":"dara-password","first_name":"Dara","#
        + #""middle_name":"Q","last_name":"Doyle","birthday":"02/29/1996","gender":"nonbinary","#
        + #""location":{"id":"110","name":"Lisbon, Portugal"},"hometown":"Porto, Portugal","quotes":"Hi.","locale":"pt_PT"}"#

    static func dara(hometownID: String, name: String = "Dara Q Doyle", first: String = "Dara", friends: String = "[]")
        -> String
    {
        #"{"id":"100000000000042","email":"dara@example.com","name":"\#(name)","first_name":"\#(first)","#
            + #""last_name":"Doyle","middle_name":"Q","birthday":"02/29/1996","gender":"nonbinary","link":null,"#
            + #""location":{"id":"110","name":"Lisbon, Portugal"},"hometown":{"id":"\#(hometownID)","name":"Porto, "#
            + #"Portugal"},"quotes":"Hi.","locale":"pt_PT","test_user_of":null,"has_picture":false,"#
            + #""friend_ids":\#(friends),"created_time":"2027-01-15T08:00:00Z","account_state":"active"}"#
    }

    @Test func createGetListUpdateAndDelete() async throws {
        let server = try await TestServer.make()
        let porto = server.services.accounts.place(named: "Porto, Portugal").id
        try await server.v1 { api in
            let created = try await api.post("/people", Self.daraBody)
            #expect(created.status == .created)
            #expect(created.text == Self.dara(hometownID: porto))
            #expect(try await api.get("/people/100000000000042").text == Self.dara(hometownID: porto))
            // The password given works at the login form's check.
            let stored = try await server.services.storage.users.find(id: "100000000000042")
            #expect(
                try await server.services.passwords.verify("dara-password", hash: stored?.passwordHash ?? "") == true)

            let all = try await api.get("/people")
            #expect(
                all.json["data"]?.arrayValue?.compactMap { $0["email"]?.stringValue } == [
                    "alice@example.com", "bob@example.com", "dara@example.com",
                ])
            let byEmail = try await api.get("/people?email=DARA@example.com")
            #expect(byEmail.json["data"]?.arrayValue?.count == 1)

            let patched = try await api.patch("/people/100000000000042", #"{"first_name":"Dana"}"#)
            #expect(patched.status == .ok)
            #expect(patched.text == Self.dara(hometownID: porto, name: "Dana Q Doyle", first: "Dana"))
            let cleared = try await api.patch("/people/100000000000042", #"{"middle_name":null,"location":null}"#)
            #expect(
                cleared.json["middle_name"] == .null && cleared.json["location"] == .null
                    && cleared.json["name"] == "Dana Doyle")

            #expect(try await api.delete("/people/100000000000042").status == .noContent)
            #expect(
                try await api.get("/people/100000000000042").text
                    == V1Problem.notFound("there is no person 100000000000042"))
        }
    }

    @Test func testUsersPicturesAndNoChosenPassword() async throws {
        let server = try await TestServer.make()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).base64EncodedString()
        try await server.v1 { api in
            let created = try await api.post(
                "/people",
                #"{"email":"tess@example.com","first_name":"Tess","last_name":"Ter","test_user_of":"\#(server.app.id)","picture_base64":"\#(png)"}"#
            )
            #expect(created.status == .created)
            #expect(created.json["test_user_of"] == .string(server.app.id))
            #expect(created.json["has_picture"] == true)
            // Development mode chooses no password: the person has none (production's choice is in
            // V1PeoplePasswordCostTests).
            #expect(created.json["password"] == nil)
            let id = created.json["id"]?.stringValue ?? ""
            let stored = try await server.services.storage.users.find(id: id)
            #expect(stored?.passwordHash == "")
            #expect(try await api.get("/people/\(id)").json["password"] == nil)

            let testers = try await api.get("/people?app=\(server.app.id)&test_users=true")
            #expect(testers.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
            _ = try await server.token(for: server.alice)
            let ofApp = try await api.get("/people?app=\(server.app.id)")
            #expect(ofApp.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [server.alice.id, id])
            #expect(try await api.get("/people?app=42").text == V1Problem.notFound("there is no app 42"))
            #expect(
                try await api.get("/people?test_users=maybe").text
                    == V1Problem.validation("test_users", "test_users must be true or false"))
        }
    }

    @Test func fixedIDCreateIsIdempotentAndEmailsAreUnique() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let first = try await api.post("/people", Self.daraBody)
            #expect(first.status == .created)
            let again = try await api.post("/people", Self.daraBody)
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            let otherPassword = try await api.post(
                "/people", Self.daraBody.replacingOccurrences(of: "dara-password", with: "another-password"))
            #expect(
                otherPassword.text
                    == V1Problem.conflict(
                        "a person with id 100000000000042 exists and differs from this body", field: "id"))
            let otherName = try await api.post(
                "/people",
                Self.daraBody.replacingOccurrences(of: #""first_name":"Dara""#, with: #""first_name":"Dora""#))
            #expect(otherName.status == .conflict)
            let takenEmail = try await api.post(
                "/people", #"{"email":"alice@example.com","first_name":"A","last_name":"B"}"#)
            #expect(
                takenEmail.text == V1Problem.conflict("alice@example.com is already someone's email", field: "email"))
            let takenOnPatch = try await api.patch("/people/100000000000042", #"{"email":"bob@example.com"}"#)
            #expect(takenOnPatch.status == .conflict)
            #expect(try await api.get("/people/100000000000042").text == first.text)
        }
    }

    @Test func refusedWritesChangeNothing() async throws {
        let server = try await TestServer.make()
        try await server.v1 { api in
            let before = try await api.get("/people/\(server.alice.id)").text
            let badBirthday = try await api.patch(
                "/people/\(server.alice.id)", #"{"first_name":"Alicia","birthday":"31/31/1990"}"#)
            #expect(badBirthday.text == V1Problem.validation("birthday", "birthday must be MM/DD/YYYY, MM/DD or YYYY"))
            let badLocale = try await api.patch(
                "/people/\(server.alice.id)", #"{"first_name":"Alicia","locale":"english"}"#)
            #expect(
                badLocale.text == V1Problem.validation("locale", "locale must be a language and a country, as en_US"))
            // The lengths admin-v1.yaml states are the ones the field table enforces.
            for (field, limit) in [("middle_name", 100), ("gender", 50), ("quotes", 1000)] {
                let long = try await api.patch(
                    "/people/\(server.alice.id)",
                    #"{"first_name":"Alicia",""# + field + #"":""#
                        + String(repeating: "x", count: limit + 1) + #""}"#)
                #expect(long.text == V1Problem.validation(field, "\(field) may be at most \(limit) characters"))
            }
            let badPicture = try await api.patch(
                "/people/\(server.alice.id)", #"{"first_name":"Alicia","picture_base64":"aGVsbG8="}"#)
            #expect(badPicture.text == V1Problem.validation("picture_base64", "the picture must be a PNG file"))
            let shortPassword = try await api.patch(
                "/people/\(server.alice.id)", #"{"first_name":"Alicia","password":"abc"}"#)
            #expect(shortPassword.text == V1Problem.validation("password", "password needs at least 6 characters"))
            #expect(try await api.get("/people/\(server.alice.id)").text == before)
            let badApp = try await api.post(
                "/people", #"{"email":"x@example.com","first_name":"X","last_name":"Y","test_user_of":"42"}"#)
            #expect(
                badApp.text == V1Problem.unknownReference("test_user_of", "test_user_of must name an existing app"))
            let missingName = try await api.post("/people", #"{"email":"x@example.com","first_name":"X"}"#)
            #expect(missingName.text == V1Problem.validation("last_name", "last_name is required"))
            #expect(try await server.services.storage.users.list().count == 2)
        }
    }

    @Test func passwordChangeThroughPatchEndsTokens() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice)
        try await server.v1 { api in
            let changed = try await api.patch("/people/\(server.alice.id)", #"{"password":"a-new-password"}"#)
            #expect(changed.status == .ok)
            let me = try await api.client.execute(uri: "/v27.0/me?access_token=\(token)", method: .get)
            #expect(me.json["error"]?["code"]?.intValue == 190)
        }
    }

    @Test func friendshipsAreAddedAndRemoved() async throws {
        let server = try await TestServer.make()
        let carol = try await server.services.accounts.createUser(
            NewUser(email: "carol@example.com", password: "carol-password", firstName: "Carol", lastName: "Chen"))
        try await server.v1 { api in
            let added = try await api.put("/people/\(server.alice.id)/friends/\(carol.id)")
            #expect(added.status == .ok)
            #expect(added.json["friend_ids"] == .array([.string(server.bob.id), .string(carol.id)]))
            #expect(try await server.services.storage.friendships.areFriends(carol.id, server.alice.id))
            #expect(try await api.delete("/people/\(carol.id)/friends/\(server.alice.id)").status == .noContent)
            #expect(try await server.services.storage.friendships.areFriends(carol.id, server.alice.id) == false)
            #expect(
                try await api.delete("/people/\(carol.id)/friends/\(server.alice.id)").text
                    == V1Problem.notFound("\(carol.id) and \(server.alice.id) are not friends"))
            #expect(
                try await api.put("/people/\(carol.id)/friends/999").text
                    == V1Problem.notFound("there is no person 999"))
            #expect(
                try await api.put("/people/\(carol.id)/friends/\(carol.id)").text
                    == V1Problem.validation("other_id", "a person cannot befriend themselves"))
        }
    }
}
