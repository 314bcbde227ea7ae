import Foundation
import GatehouseProtocol
import GatehouseTesting
import Testing

/// `createApp`, `createPerson`, `befriend` and `grant` on the in-process emulator, checked through what an app
/// then reads from the Graph API.
@Suite struct EmulatorSetupHelperTests {
    typealias Wire = GatehouseEmulatorTests

    @Test func aCreatedAppAndItsTestUserLogIn() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let shop = try await gatehouse.createApp(
            name: "Corner Shop", redirectURIs: ["https://shop.example/callback"], approvedPermissions: ["email"],
            requirePKCE: true)
        #expect(shop.name == "Corner Shop")
        #expect(shop.redirectURIs == ["https://shop.example/callback"])
        #expect(shop.redirectURI == "https://shop.example/callback")
        #expect(shop.id != gatehouse.app.id && !shop.secret.isEmpty && !shop.clientToken.isEmpty)
        let dana = try await gatehouse.createPerson(
            firstName: "Dana", lastName: "Diaz", email: "dana@shop.test", password: "dana-shops", testUserOf: shop,
            profile: ["birthday": "04/01/1990"])
        #expect(dana.name == "Dana Diaz")
        #expect(dana.email == "dana@shop.test")
        #expect(dana.password == "dana-shops")
        let login = try await gatehouse.logIn(dana, to: shop, permissions: ["email", "user_birthday"])
        let (status, me) = try await Wire.getText(
            gatehouse, "v21.0/me", ["fields": "id,name,email,birthday", "access_token": login.accessToken])
        #expect(status == 200)
        #expect(me == #"{"id":"\#(login.userID)","name":"Dana Diaz","email":"dana@shop.test","birthday":"04/01/1990"}"#)
        try await gatehouse.stop()
    }

    @Test func aFixedIDIsIdempotentAndADifferentBodyConflicts() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let first = try await gatehouse.createApp(name: "Fixed", id: "1960000000000009", secret: "fixed-secret-0123")
        let again = try await gatehouse.createApp(name: "Fixed", id: "1960000000000009", secret: "fixed-secret-0123")
        #expect(first == again)
        #expect(first.id == "1960000000000009" && first.secret == "fixed-secret-0123")
        let error = await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.createApp(name: "Another name", id: "1960000000000009")
        }
        #expect(error?.status == 409)
        #expect(error?.type == "https://gatehouse.dev/problems/conflict")
        #expect(error?.field == "id")
        // A taken email is a conflict too; a person made without a password on an emulator has none.
        let eve = try await gatehouse.createPerson(firstName: "Eve", lastName: "Ek", email: "eve@example.test")
        #expect(eve.password == "")
        let taken = await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.createPerson(firstName: "Eve", lastName: "Other", email: "eve@example.test")
        }
        #expect(taken?.status == 409)
        #expect(taken?.field == "email")
        try await gatehouse.stop()
    }

    @Test func befriendedPeopleSeeEachOtherInMeFriends() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let ann = try await gatehouse.createPerson(
            firstName: "Ann", lastName: "Aa", email: "ann@example.test", testUserOf: gatehouse.app)
        let ben = try await gatehouse.createPerson(
            firstName: "Ben", lastName: "Bb", email: "ben@example.test", testUserOf: gatehouse.app)
        let annLogin = try await gatehouse.logIn(ann, permissions: ["user_friends"])
        let benLogin = try await gatehouse.logIn(ben, permissions: ["user_friends"])
        let (_, before) = try await Wire.get(gatehouse, "v21.0/me/friends", ["access_token": annLogin.accessToken])
        #expect(before["data"] == [])
        try await gatehouse.befriend(ann, ben)
        try await gatehouse.befriend(ann, ben)
        let (status, after) = try await Wire.get(gatehouse, "v21.0/me/friends", ["access_token": annLogin.accessToken])
        #expect(status == 200)
        // Decoded, so members are compared one by one (the decoder does not keep their order).
        let friends = try #require(after["data"]?.arrayValue)
        #expect(friends.count == 1)
        #expect(friends.first?["id"] == .string(benLogin.userID))
        #expect(friends.first?["name"] == "Ben Bb")
        try await gatehouse.stop()
    }

    @Test func aGrantSetsGrantedAndDeclinedWithoutABrowser() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let gatehouse = try await GatehouseEmulator.start(.init(startDate: start))
        let bob = gatehouse.users[1]
        let grant = try await gatehouse.grant(["email"], declined: ["user_friends"], by: bob)
        #expect(grant.granted == ["public_profile", "email"])
        #expect(grant.declined == ["user_friends"])
        #expect(grant.dataAccessExpiresAt == start.addingTimeInterval(90 * 86400))
        let token = try await gatehouse.mintToken(for: bob)
        let (_, body) = try await Wire.getText(gatehouse, "v21.0/me/permissions", ["access_token": token.accessToken])
        #expect(
            body
                == #"{"data":[{"permission":"public_profile","status":"granted"},{"permission":"email","status":"granted"},"#
                + #"{"permission":"user_friends","status":"declined"}]}"#)
        // Granting and declining one permission at once is refused, naming the field.
        let error = await #expect(throws: GatehouseAdminError.self) {
            try await gatehouse.grant(["email"], declined: ["email"], by: bob)
        }
        #expect(error?.status == 400)
        #expect(error?.field == "declined")
        try await gatehouse.stop()
    }

    @Test func removingTheAppEndsItsTokensAndGrant() async throws {
        let gatehouse = try await GatehouseEmulator.start()
        let carol = gatehouse.users[2]
        let login = try await gatehouse.logIn(carol, permissions: ["email"])
        try await gatehouse.removeApp(for: carol)
        let (status, body) = try await Wire.get(gatehouse, "v21.0/me", ["access_token": login.accessToken])
        #expect(status == 400)
        #expect(body["error"]?["code"] == 190)
        let error = await #expect(throws: GatehouseAdminError.self) { try await gatehouse.removeApp(for: carol) }
        #expect(error?.status == 404)
        #expect(error?.type == "https://gatehouse.dev/problems/not-found")
        try await gatehouse.stop()
    }
}
