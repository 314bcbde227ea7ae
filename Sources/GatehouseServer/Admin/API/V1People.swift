import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/people`: create (an ordinary person or a test user of an app, every profile field, a picture), read, list
/// and filter, change, delete; `/people/{id}/friends/{other_id}` befriends and unfriends.
package struct V1People: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/people") { try await list($0) },
            // A picture travels as base64 inside the body: up to 2 MiB of PNG.
            V1Route(method: .post, path: "/people", bodyLimit: 4 << 20) { try await create($0) },
            V1Route(method: .get, path: "/people/{id}") { call in
                AdminAPIv1.reply(try await json(try await find(call.parameter("id"))))
            },
            V1Route(method: .patch, path: "/people/{id}", bodyLimit: 4 << 20) { call in
                AdminAPIv1.reply(try await update(id: call.parameter("id"), try call.body().object))
            },
            V1Route(method: .delete, path: "/people/{id}") { call in
                let person = try await find(call.parameter("id"))
                // The person's own "Delete my account", done for them (a support request, a data-deletion
                // request): every app they used gets its data-deletion and deauthorize callbacks, and their old
                // tokens answer 190/458.
                try await AccountDeletion(services: services).delete(person)
                return AdminAPIv1.reply(nil)
            },
            V1Route(method: .put, path: "/people/{id}/friends/{other_id}") { call in
                _ = try call.body()
                let (person, other) = try await pair(call)
                try await services.storage.friendships.befriend(person.id, other.id, at: services.clock.now())
                return AdminAPIv1.reply(try await json(person))
            },
            V1Route(method: .delete, path: "/people/{id}/friends/{other_id}") { call in
                let (person, other) = try await pair(call)
                guard try await services.storage.friendships.areFriends(person.id, other.id) else {
                    throw Problem.notFound("\(person.id) and \(other.id) are not friends")
                }
                try await services.storage.friendships.unfriend(person.id, other.id)
                return AdminAPIv1.reply(nil)
            },
        ]
    }

    /// `GET /people?app=&test_users=true&email=`: `app` keeps the app's test users and the people who granted it.
    func list(_ call: V1Call) async throws -> Response {
        let page = try Page(call.request)
        let people = try await people(
            app: call.query("app"), testUsersOnly: try Self.flag(call.query("test_users"), field: "test_users"),
            email: call.query("email"))
        let shown = Array(people.dropFirst(min(page.offset, people.count)).prefix(page.limit))
        var rendered: [String: JSONValue] = [:]
        for person in shown { rendered[person.id] = try await json(person) }
        return AdminAPIv1.reply(page.answer(people) { rendered[$0.id] ?? .null })
    }

    /// The people `GET /people` lists, oldest first: `email` finds one address; `testUsersOnly` keeps test users;
    /// `app` keeps that app's test users and, unless `testUsersOnly`, the people who granted it. `gatehouse users
    /// list` filters through this too.
    package func people(app: String?, testUsersOnly: Bool, email: String?) async throws -> [UserRecord] {
        let storage = services.storage
        var people: [UserRecord]
        if let email {
            people = try await storage.users.find(email: email).map { [$0] } ?? []
        } else {
            people = try await storage.users.list()
        }
        if testUsersOnly { people = people.filter { $0.testUserOfAppID != nil } }
        if let appID = app {
            _ = try await V1Apps(services: services).find(appID)
            let granted = Set(try await storage.grants.grants(appID: appID).map(\.userID))
            people = people.filter { $0.testUserOfAppID == appID || (!testUsersOnly && granted.contains($0.id)) }
        }
        return people
    }

    /// `POST /people`: 201 and the person; with a fixed `id` that exists, 200 when the body describes that person,
    /// else 409. Without a password, production chooses one and answers it; development mode stores none (no
    /// hash: the person logs in through the login page's picker or the admin API), so a person costs its rows.
    func create(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let id = try body.string("id", max: 20)
        if let id, id.isEmpty || !id.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw Problem.validation("id", "id must be 1 to 20 digits")
        }
        let email = try body.requiredString("email", max: 254)
        let chosenPassword = try body.string("password", max: 200)
        let profile = try await PersonFields.read(&body, services: services, creating: true)
        let testUserOf = try body.string("test_user_of", max: 20)
        try body.finish()
        guard email.contains("@") else { throw Problem.validation("email", "email must be an email address") }
        if let chosenPassword, chosenPassword.count < 6 {
            throw Problem.validation("password", "password needs at least 6 characters")
        }
        if let testUserOf, try await services.storage.apps.find(id: testUserOf) == nil {
            throw Problem.unknownReference("test_user_of", "test_user_of must name an existing app")
        }
        if let id, let existing = try await services.storage.users.find(id: id) {
            // Production never compares a password for an answer: 200 against 409 would tell a token holder
            // whether a guess is someone's password, unthrottled (issue 39, finding 11). Change it with PATCH.
            if chosenPassword != nil, services.configuration.isProduction {
                throw Problem.conflict(
                    "a person with id \(id) exists; production never compares a password (change it with PATCH)",
                    field: "password")
            }
            let same = try await profile.describes(existing, email: email, testUserOf: testUserOf)
            let samePassword =
                try await chosenPassword.asyncMap {
                    try await services.passwords.verify($0, hash: existing.passwordHash)
                } ?? true
            guard same, samePassword else {
                throw Problem.conflict("a person with id \(id) exists and differs from this body", field: "id")
            }
            return AdminAPIv1.reply(try await json(existing))
        }
        if let taken = try await services.storage.users.find(email: email) {
            throw Problem.conflict("\(taken.email) is already someone's email", field: "email")
        }
        let passwordless = chosenPassword == nil && services.configuration.isDevelopment
        let password = chosenPassword ?? (passwordless ? "" : services.random.alphanumeric(bits: 96))
        var new = NewUser(
            email: email, password: password, firstName: profile.firstName ?? "", lastName: profile.lastName ?? "",
            testUserOfAppID: testUserOf, id: id)
        if passwordless { new.passwordHash = UserRecord.noPassword }
        profile.apply(to: &new)
        let person: UserRecord
        do {
            person = try await services.accounts.createUser(new)
        } catch let error as AccountError where error.description.contains("already exists") {
            throw Problem.conflict(error.description, field: "email")
        } catch StorageError.conflict {
            throw Problem.conflict("the id or email is taken", field: "id")
        }
        if !profile.profile.isEmpty {
            var saved = person
            profile.apply(to: &saved)
            try await services.storage.users.update(saved)
        }
        guard case .object(var object) = try await json(try await find(person.id)) else { return AdminAPIv1.reply(nil) }
        if chosenPassword == nil, !passwordless { object["password"] = .string(password) }
        return AdminAPIv1.reply(.object(object), status: .created)
    }

    /// `PATCH /people/{id}`: the fields given; a new password signs the person out everywhere (the console's path).
    /// `PATCH /people/{id}`: changes the fields given (null clears). `gatehouse users update` on a local database
    /// runs it too, so a password change goes through `AccountService.changePassword` from the CLI as well.
    package func update(id: String, _ fields: JSONObject) async throws -> JSONValue {
        var body = try RequestBody(.object(fields))
        var person = try await find(id)
        let previousEmail = person.email
        let email = body.has("email") ? try body.requiredString("email", max: 254) : nil
        let password = try body.string("password", max: 200)
        let profile = try await PersonFields.read(&body, services: services, creating: false)
        let state = try Self.accountState(&body)
        try body.finish()
        if let email {
            guard email.contains("@") else { throw Problem.validation("email", "email must be an email address") }
            if let taken = try await services.storage.users.find(email: email), taken.id != person.id {
                throw Problem.conflict("\(taken.email) is already someone's email", field: "email")
            }
            person.email = email
        }
        if let password, password.count < 6 {
            throw Problem.validation("password", "password needs at least 6 characters")
        }
        profile.apply(to: &person)
        if let password {
            person = try await services.accounts.changePassword(of: person, to: password)
        } else {
            try await services.storage.users.update(person)
        }
        if !AccountMailer.sameAddress(previousEmail, person.email) {
            try await services.accounts.addressChanged(person)
        }
        if let state { try await services.accounts.setAccountState(of: person, to: state) }
        return try await json(try await find(person.id))
    }

    /// `account_state`, when the body has it: one of ``AccountState``'s raw values.
    static func accountState(_ body: inout RequestBody) throws -> AccountState? {
        guard body.has("account_state") else { return nil }
        let names = AccountState.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = try body.string("account_state", max: 40), let state = AccountState(rawValue: text) else {
            throw Problem.validation("account_state", "account_state must be one of \(names)")
        }
        return state
    }

    func find(_ id: String) async throws -> UserRecord {
        guard id.count <= 20, let person = try await services.storage.users.find(id: id) else {
            throw Problem.notFound("there is no person \(GraphError.echo(id))")
        }
        return person
    }

    private func pair(_ call: V1Call) async throws -> (UserRecord, UserRecord) {
        let person = try await find(call.parameter("id")), other = try await find(call.parameter("other_id"))
        guard person.id != other.id else { throw Problem.validation("other_id", "a person cannot befriend themselves") }
        return (person, other)
    }

    /// A boolean query parameter: `true`/`false`, or `1`/`0` as links and older scripts write it (the document's
    /// `Flag`); anything else is refused.
    static func flag(_ text: String?, field: String) throws -> Bool {
        switch text {
        case nil, "false", "0": return false
        case "true", "1": return true
        default: throw Problem.validation(field, "\(field) must be true or false")
        }
    }

    package func json(_ person: UserRecord) async throws -> JSONValue {
        let friends = try await services.storage.friendships.friends(of: person.id)
        var object: JSONObject = [
            "id": .string(person.id), "email": .string(person.email), "name": .string(person.fullName),
            "first_name": .string(person.firstName), "last_name": .string(person.lastName),
        ]
        // The field table's text and place fields, as stored (null when unset).
        for entry in UserFieldValue.editable {
            switch entry.kind {
            case .text(let path, _, _): object[entry.field.name] = AdminAPIv1.optional(person[keyPath: path])
            case .place(let path, _, _):
                object[entry.field.name] =
                    person[keyPath: path].map { ["id": .string($0.id), "name": .string($0.name)] } ?? .null
            case .derived, .edge: break
            }
        }
        let rest: JSONObject = [
            "test_user_of": AdminAPIv1.optional(person.testUserOfAppID), "has_picture": .bool(person.picture != nil),
            "friend_ids": .array(friends.map(JSONValue.string)), "created_time": AdminAPIv1.time(person.createdAt),
            "account_state": .string(person.accountState.rawValue),
        ]
        for (key, value) in rest.pairs { object[key] = value }
        return .object(object)
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
