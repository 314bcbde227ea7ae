import GatehouseCore
import Foundation
import GatehouseProtocol

/// What development mode creates on first start, written to `<data-dir>/dev-seed.json` and printed.
package struct DevSeed: Codable, Sendable, Equatable {
    package struct App: Codable, Sendable, Equatable {
        package var id: String
        package var name: String
        package var secret: String
        package var clientToken: String
        package var redirectURIs: [String]
        enum CodingKeys: String, CodingKey {
            case id, name, secret
            case clientToken = "client_token"
            case redirectURIs = "redirect_uris"
        }
    }
    package struct User: Codable, Sendable, Equatable {
        package var id: String
        package var name: String
        package var email: String
        package var password: String
    }
    package var app: App
    package var users: [User]
    package var dialogURL: String
    package var server: String

    enum CodingKeys: String, CodingKey {
        case app, users, server
        case dialogURL = "dialog_url"
    }
}

/// Seeds a demo app and three befriended test users into an empty database.
package struct DevSeeder: Sendable {
    let services: GatehouseServices
    /// Where the seed's password hashes are kept between seeds (the process's, unless a test brings its own).
    let passwordHashes: SeedPasswordHashes

    package init(services: GatehouseServices, passwordHashes: SeedPasswordHashes = .process) {
        self.services = services
        self.passwordHashes = passwordHashes
    }

    static let people: [(first: String, last: String, birthday: String, gender: String)] = [
        ("Alice", "Anders", "04/12/1990", "female"), ("Bob", "Brown", "11/03/1985", "male"),
        ("Carol", "Chen", "07/30/2001", "female"),
    ]

    /// Seeds when the database has no apps; otherwise reads the earlier seed file. Returns nil when there is neither.
    /// The caller writes the result with ``write(_:)`` once the server answers.
    package func seedIfNeeded() async throws -> DevSeed? {
        let path = services.configuration.devSeedPath
        if try await !services.storage.apps.list().isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            var seed = try JSONDecoder().decode(DevSeed.self, from: data)
            seed.dialogURL = dialogURL(appID: seed.app.id)
            seed.server = services.configuration.baseURL
            return seed
        }
        let (seed, rows) = try await make()
        try await services.storage.emulator.insertAll(rows)
        return seed
    }

    /// Replaces the whole state with a new seed (`POST /admin/api/v1/state/reset {"to":"seed"}`): one transaction.
    package func reseed() async throws -> DevSeed {
        let (seed, rows) = try await make()
        try await StateTransfer(services: services).replace(with: rows)
        return seed
    }

    /// A new seed and its rows, written by neither: the app, the people and their friendships go to the database
    /// together.
    func make() async throws -> (DevSeed, StoredState) {
        let accounts = services.accounts
        let base = services.configuration.baseURL
        var app = try accounts.newApp(
            name: "Gatehouse Demo", redirectURIs: [base + "/dev/callback", "http://127.0.0.1/callback"])
        // The demo app opts in to plain tokens at its URL scheme, so SDK experiments with response_type=token work.
        app.redirectURIs.append("fb\(app.id)://authorize/")
        // bcrypt is slow, so the passwords are hashed once per process (the same three every time) and side by
        // side; the people are then made one by one, in order, so ids and rows come out the same on every run
        // with a seeded random source.
        let passwords = Self.people.map { "\($0.first.lowercased())-gatehouse" }
        let hashes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, password) in passwords.enumerated() {
                group.addTask { (i, try await passwordHashes.hash(password, with: services.passwords)) }
            }
            var made = [String](repeating: "", count: passwords.count)
            for try await (i, hash) in group { made[i] = hash }
            return made
        }
        var rows = StoredState(createdAt: services.clock.now())
        rows.apps = [app]
        var users: [DevSeed.User] = []
        for (i, p) in Self.people.enumerated() {
            var new = NewUser(
                email: "\(p.first.lowercased())@gatehouse.test", password: passwords[i], firstName: p.first,
                lastName: p.last,
                birthday: p.birthday, gender: p.gender, testUserOfAppID: app.id)
            new.passwordHash = hashes[i]
            let user = try await accounts.newUser(new, knownApps: [app.id])
            rows.users.append(user)
            users.append(DevSeed.User(id: user.id, name: user.fullName, email: user.email, password: passwords[i]))
        }
        for i in users.indices {
            for j in users.indices where j > i { rows.friendships.append((users[i].id, users[j].id)) }
        }
        let seed = DevSeed(
            app: .init(
                id: app.id, name: app.name, secret: app.secret, clientToken: app.clientToken,
                redirectURIs: app.redirectURIs),
            users: users, dialogURL: dialogURL(appID: app.id), server: base)
        return (seed, rows)
    }

    /// Writes `seed` to `dev-seed.json` (owner-only), replacing any earlier file in one step, so a reader never
    /// sees half a file or a port from an earlier run. Not synced to disk: the file is rewritten at every start and
    /// reset to the seed, and `FileManager.createFile`'s fsync cost each reset as much as its whole transaction.
    package func write(_ seed: DevSeed) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(seed)
        let path = services.configuration.devSeedPath
        try FileManager.default.createDirectory(
            atPath: services.configuration.dataDirectory, withIntermediateDirectories: true)
        let partial = path + ".partial"
        unlink(partial)
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try file.write(contentsOf: data)
        try file.close()
        guard rename(partial, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    func dialogURL(appID: String) -> String {
        let base = services.configuration.baseURL
        return "\(base)/\(GraphAPIVersion.current)/dialog/oauth?"
            + FormEncoding.encode([
                ("client_id", appID), ("redirect_uri", base + "/dev/callback"),
                ("scope", "email,user_friends,user_birthday"),
                ("state", "walkthrough"), ("response_type", "code"),
            ])
    }
}
