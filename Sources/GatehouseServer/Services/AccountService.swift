import GatehouseCore
import Foundation
import GatehouseProtocol

/// What it takes to create a person.
package struct NewUser: Sendable {
    package var email: String
    package var password: String
    package var firstName: String
    package var middleName: String?
    package var lastName: String
    package var birthday: String?
    package var gender: String?
    package var location: Place?
    package var hometown: Place?
    package var testUserOfAppID: String?
    /// A PNG; nil means Gatehouse serves a generated avatar.
    package var picture: Data?
    /// A fixed global user id; nil draws one from the services' random source.
    package var id: String?
    /// The field table's text and place fields (`UserFieldValue.editable`) by field name, as a person types them
    /// (a place by its name); set over the properties above, and checked by the table's rules.
    package var profile: [String: String] = [:]
    /// The password's hash when the caller already made it with the services' hasher, or
    /// ``UserRecord/noPassword`` for a person without one (`password` is then ignored); nil hashes `password`.
    package var passwordHash: String?

    package init(
        email: String, password: String, firstName: String, middleName: String? = nil, lastName: String,
        birthday: String? = nil, gender: String? = nil, location: Place? = nil, hometown: Place? = nil,
        testUserOfAppID: String? = nil, picture: Data? = nil, id: String? = nil
    ) {
        self.id = id
        self.picture = picture
        self.email = email
        self.password = password
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.birthday = birthday
        self.gender = gender
        self.location = location
        self.hometown = hometown
        self.testUserOfAppID = testUserOfAppID
    }
}

/// Why an account operation was refused, in words a person can act on.
package struct AccountError: Error, CustomStringConvertible, Equatable, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Creates and changes apps and people. Shared by the CLI, dev seeding and the Graph test-user endpoints.
package struct AccountService: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) { self.services = services }

    /// Registers an app with fresh id, secret and client token.
    /// - Parameters:
    ///   - id: a fixed id (the admin API's create, for tests that hard-code one); nil draws a fresh one.
    ///   - secret: a fixed secret, likewise.
    package func createApp(
        name: String, redirectURIs: [String], requireAppSecret: Bool = false, requirePKCE: Bool = false,
        approvedPermissions: [String] = [],
        deauthorizeCallbackURL: String? = nil, dataDeletionCallbackURL: String? = nil, id: String? = nil,
        secret: String? = nil,
        jsSDKDomains: [String] = []
    ) async throws -> AppRecord {
        let app = try newApp(
            name: name, redirectURIs: redirectURIs, requireAppSecret: requireAppSecret, requirePKCE: requirePKCE,
            approvedPermissions: approvedPermissions, deauthorizeCallbackURL: deauthorizeCallbackURL,
            dataDeletionCallbackURL: dataDeletionCallbackURL, id: id, secret: secret, jsSDKDomains: jsSDKDomains)
        try await services.storage.apps.create(app)
        return app
    }

    /// The app ``createApp(name:redirectURIs:requireAppSecret:requirePKCE:approvedPermissions:deauthorizeCallbackURL:dataDeletionCallbackURL:id:secret:jsSDKDomains:)``
    /// would store, checked and with its id and secrets drawn, but not stored (the development seed writes its
    /// rows together).
    package func newApp(
        name: String, redirectURIs: [String], requireAppSecret: Bool = false, requirePKCE: Bool = false,
        approvedPermissions: [String] = [],
        deauthorizeCallbackURL: String? = nil, dataDeletionCallbackURL: String? = nil, id: String? = nil,
        secret: String? = nil,
        jsSDKDomains: [String] = []
    ) throws -> AppRecord {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw AccountError("an app needs a name") }
        for uri in redirectURIs where !RedirectURIPolicy.isAcceptableRegistration(uri) {
            throw AccountError("redirect URI \"\(uri)\" must be an absolute URL without a fragment")
        }
        for permission in approvedPermissions where !Permission.isKnown(permission) {
            throw AccountError("unknown permission \"\(permission)\"")
        }
        if let problem = JavaScriptSDKDomains.registrationProblem(jsSDKDomains) { throw AccountError(problem) }
        let app = AppRecord(
            id: id ?? services.random.numericID(digits: 16), secret: secret ?? services.random.hex(16),
            clientToken: services.random.hex(16), name: name, redirectURIs: redirectURIs,
            requireAppSecret: requireAppSecret, requirePKCE: requirePKCE, approvedPermissions: approvedPermissions,
            deauthorizeCallbackURL: deauthorizeCallbackURL, dataDeletionCallbackURL: dataDeletionCallbackURL,
            createdAt: services.clock.now(), jsSDKDomains: jsSDKDomains)
        return app
    }

    /// Creates a person with a bcrypt-hashed password.
    package func createUser(_ new: NewUser) async throws -> UserRecord {
        let user = try await newUser(new)
        do {
            try await services.storage.users.create(user)
        } catch StorageError.conflict {
            throw AccountError("a user with email \(user.email) already exists")
        }
        return user
    }

    /// The person ``createUser(_:)`` would store, checked, hashed and with an id, but not stored (the development
    /// seed writes its rows together).
    /// - Parameter knownApps: the apps a test user may belong to; nil: those in storage.
    package func newUser(_ new: NewUser, knownApps: Set<String>? = nil) async throws -> UserRecord {
        let email = new.email.trimmingCharacters(in: .whitespaces)
        guard email.contains("@"), email.count <= 254 else {
            throw AccountError("\"\(new.email)\" is not an email address")
        }
        guard new.passwordHash != nil || new.password.count >= 6 else {
            throw AccountError("passwords need at least 6 characters")
        }
        guard !new.firstName.isEmpty, !new.lastName.isEmpty else {
            throw AccountError("first and last name are required")
        }
        // The id and hash are set once the fields pass: the bcrypt hash is the slow part.
        var user = UserRecord(
            id: "", email: email, passwordHash: "", firstName: new.firstName,
            middleName: new.middleName, lastName: new.lastName, birthday: new.birthday, gender: new.gender,
            link: nil, location: new.location, hometown: new.hometown, picture: new.picture,
            testUserOfAppID: new.testUserOfAppID, createdAt: services.clock.now())
        for (name, text) in new.profile.sorted(by: { $0.key < $1.key }) {
            guard let entry = UserFieldValue.named(name), !entry.columns.isEmpty else {
                throw AccountError("\(name) is not a profile field")
            }
            entry.assign(text, to: &user, place: place(named:))
        }
        for entry in UserFieldValue.editable where entry.stored(user).contains(where: { $0 != nil }) {
            if let problem = entry.problem(entry.typed(user)) { throw AccountError(problem) }
        }
        if let picture = new.picture {
            guard picture.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw AccountError("the picture must be a PNG file")
            }
            guard picture.count <= 2 << 20 else { throw AccountError("the picture must be at most 2 MiB") }
        }
        if let appID = new.testUserOfAppID {
            let known =
                if let knownApps { knownApps.contains(appID) } else {
                    try await services.storage.apps.find(id: appID) != nil
                }
            guard known else { throw AccountError("no app with id \(appID)") }
        }
        let hash: String
        if let given = new.passwordHash { hash = given } else { hash = try await services.passwords.hash(new.password) }
        user.id = new.id ?? services.random.numericID(digits: 15)
        user.passwordHash = hash
        return user
    }

    /// Finds a person by global id or email.
    package func findUser(_ idOrEmail: String) async throws -> UserRecord? {
        if idOrEmail.contains("@") { return try await services.storage.users.find(email: idOrEmail) }
        return try await services.storage.users.find(id: idOrEmail)
    }

    /// A place with a stable numeric id derived from its name, as Facebook's Page ids are stable.
    package func place(named name: String) -> Place {
        let digest = SecretHash.sha256Hex("place:" + name.lowercased())
        let digits = digest.compactMap { $0.hexDigitValue }.map { String($0 % 10) }.joined()
        return Place(id: "1" + digits.prefix(14), name: name)
    }
}
