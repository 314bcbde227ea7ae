import Foundation
import GatehouseProtocol

extension GatehouseEmulator {
    /// Registers an app (`POST /admin/api/v1/apps`).
    ///
    /// - Parameters:
    ///   - redirectURIs: where its dialogs may return (`fb{id}://authorize/` is always allowed).
    ///   - approvedPermissions: what App Review approved; people other than its test users and role holders are
    ///     asked only for these.
    ///   - requirePKCE: code flows must send a `code_challenge`.
    ///   - requireAppSecret: Graph calls must carry `appsecret_proof`.
    ///   - id, secret: fixed values, for tests that hard-code them. Creating the same fixed id again with the same
    ///     settings returns the existing app; different settings throw a 409 ``GatehouseAdminError``.
    @discardableResult
    public func createApp(
        name: String, redirectURIs: [String] = [], approvedPermissions: [String] = [], requirePKCE: Bool = false,
        requireAppSecret: Bool = false, id: String? = nil, secret: String? = nil
    ) async throws -> TestApp {
        var body: JSONObject = [
            "name": .string(name), "redirect_uris": .array(redirectURIs.map(JSONValue.string)),
            "approved_permissions": .array(approvedPermissions.map(JSONValue.string)),
            "require_pkce": .bool(requirePKCE), "require_app_secret": .bool(requireAppSecret),
        ]
        if let id { body["id"] = .string(id) }
        if let secret { body["secret"] = .string(secret) }
        return try TestApp(try await admin.send("POST", "/apps", body: .object(body)))
    }

    /// Creates a person (`POST /admin/api/v1/people`).
    ///
    /// - Parameters:
    ///   - email: unique on the server; a taken one throws a 409 ``GatehouseAdminError``.
    ///   - password: at least 6 characters; nil: in development mode (an emulator) the person has no password
    ///     (``TestUser/password`` is empty: ``logIn(_:to:permissions:declined:)`` and ``HeadlessLoginPresenter``
    ///     still log them in, through the admin API and the login page's picker); a production server picks one
    ///     and returns it in ``TestUser/password``.
    ///   - testUserOf: makes the person a test user of that app (they may grant it unapproved permissions).
    ///   - id: a fixed id (digits), for tests that hard-code it.
    ///   - profile: any other field of the API's person object, e.g. `["birthday": "04/01/1990", "gender": "female",
    ///     "location": "Lisbon, Portugal"]`.
    @discardableResult
    public func createPerson(
        firstName: String, lastName: String, email: String, password: String? = nil, testUserOf: TestApp? = nil,
        id: String? = nil, profile: [String: JSONValue] = [:]
    ) async throws -> TestUser {
        var body = JSONObject()
        for (key, value) in profile.sorted(by: { $0.key < $1.key }) { body[key] = value }
        body["first_name"] = .string(firstName)
        body["last_name"] = .string(lastName)
        body["email"] = .string(email)
        if let password { body["password"] = .string(password) }
        if let testUserOf { body["test_user_of"] = .string(testUserOf.id) }
        if let id { body["id"] = .string(id) }
        let person = try await admin.send("POST", "/people", body: .object(body))
        guard let personID = person?["id"]?.stringValue else {
            throw EmulatorError.unexpectedAnswer("POST /people: no id")
        }
        return TestUser(
            id: personID, name: person?["name"]?.stringValue ?? "\(firstName) \(lastName)", email: email,
            password: password ?? person?["password"]?.stringValue ?? "")
    }

    /// Makes `person` and `other` friends (`PUT /people/{id}/friends/{other_id}`); doing it twice is harmless.
    public func befriend(_ person: TestUser, _ other: TestUser) async throws {
        try await admin.send("PUT", "/people/\(person.id)/friends/\(other.id)")
    }

    /// Sets what `person` granted and declined to `app` without a browser (`PUT /apps/{app}/grants/{person}`),
    /// replacing any earlier grant; `public_profile` is always granted. Their data access runs 90 days from now.
    ///
    /// - Parameter app: nil: the demo app.
    @discardableResult
    public func grant(_ permissions: [String], declined: [String] = [], to app: TestApp? = nil, by person: TestUser)
        async throws -> TestGrant
    {
        let body: JSONValue = [
            "granted": .array(permissions.map(JSONValue.string)), "declined": .array(declined.map(JSONValue.string)),
        ]
        let reply = try await admin.send("PUT", "/apps/\((app ?? self.app).id)/grants/\(person.id)", body: body)
        return TestGrant(
            granted: reply?["granted"]?.strings ?? [], declined: reply?["declined"]?.strings ?? [],
            dataAccessExpiresAt: reply?["data_access_expiration_time"]?.date)
    }

    /// Removes `app` from `person`'s apps, as their settings page does (`DELETE /apps/{app}/grants/{person}`):
    /// their tokens for it are revoked and the app's deauthorize callback is called.
    public func removeApp(_ app: TestApp? = nil, for person: TestUser) async throws {
        try await admin.send("DELETE", "/apps/\((app ?? self.app).id)/grants/\(person.id)")
    }
}
