import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for people and test users: create, edit profile fields and picture, friendships.
struct ConsoleUsers: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/console/users") { request, _ in
            try await console.page(request, "console-users", title: "People", nav: "users") {
                let apps = try await services.storage.apps.list()
                let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
                return [
                    "users": try await services.storage.users.list().map { user -> [String: Any] in
                        ["id": user.id, "name": user.fullName, "email": user.email,
                         "kind": user.testUserOfAppID.map { "test user of \(names[$0] ?? $0)" } ?? "person"]
                    },
                    "apps": apps.map { ["id": $0.id, "name": $0.name] },
                ]
            }
        }
        router.post("/console/users") { request, _ in
            try await console.action(request) { form in
                let user = try await services.accounts.createUser(NewUser(
                    email: form["email"] ?? "", password: form["password"] ?? "", firstName: (form["first_name"] ?? "").trimmingCharacters(in: .whitespaces),
                    lastName: (form["last_name"] ?? "").trimmingCharacters(in: .whitespaces), testUserOfAppID: ConsoleApps.optional(form["test_user_of"])))
                return "/console/users/\(user.id)?notice=created"
            }
        }
        router.get("/console/users/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            guard id.count <= 32, let user = try await services.storage.users.find(id: id) else {
                return try await console.refused(request, "There is no person \(id).", status: .notFound)
            }
            return try await console.page(request, "console-user", title: user.fullName, nav: "users") { try await values(user) }
        }
        router.get("/console/users/:id/picture.png") { request, context in
            guard await console.access.allows(request) else { return console.denied() }
            let id = context.parameters.get("id") ?? ""
            guard id.count <= 32, let user = try await services.storage.users.find(id: id) else { return Response(status: .notFound) }
            let bytes = user.picture.map { [UInt8]($0) } ?? AvatarRenderer.render(seed: "user:" + user.id, initials: String(user.firstName.prefix(1) + user.lastName.prefix(1)), size: 144)
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.post("/console/users/:id") { request, context in
            try await console.action(request) { form in
                var user = try await find(context)
                let first = (form["first_name"] ?? "").trimmingCharacters(in: .whitespaces), last = (form["last_name"] ?? "").trimmingCharacters(in: .whitespaces)
                guard !first.isEmpty, !last.isEmpty, first.count <= 80, last.count <= 80 else { throw ConsoleInputError("First and last name are required (at most 80 characters each).") }
                let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
                guard email.contains("@"), email.count <= 254 else { throw ConsoleInputError("\"\(email)\" is not an email address.") }
                let birthday = ConsoleApps.optional(form["birthday"])
                if let birthday, !AccountService.isValidBirthday(birthday) { throw ConsoleInputError("Birthday must be MM/DD/YYYY, MM/DD or YYYY.") }
                user.firstName = first
                user.middleName = ConsoleApps.optional(form["middle_name"])
                user.lastName = last
                user.email = email
                user.birthday = birthday
                user.gender = ConsoleApps.optional(form["gender"])
                user.location = ConsoleApps.optional(form["location"]).map(services.accounts.place(named:))
                user.hometown = ConsoleApps.optional(form["hometown"]).map(services.accounts.place(named:))
                let quotes = ConsoleApps.optional(form["quotes"])
                guard (quotes?.count ?? 0) <= 1000 else { throw ConsoleInputError("Quotes may be at most 1000 characters.") }
                user.quotes = quotes
                do {
                    try await services.storage.users.update(user)
                } catch StorageError.conflict {
                    throw ConsoleInputError("Another person already uses \(email).")
                }
                return "/console/users/\(user.id)?notice=saved"
            }
        }
        router.post("/console/users/:id/picture") { request, context in
            try await console.action(request, limit: 3 << 20) { form in
                var user = try await find(context)
                if form["action"] == "clear" {
                    user.picture = nil
                } else {
                    guard let bytes = form.files["picture"], !bytes.isEmpty else { throw ConsoleInputError("Choose a PNG file to upload.") }
                    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw ConsoleInputError("The picture must be a PNG file.") }
                    guard bytes.count <= 2 << 20 else { throw ConsoleInputError("The picture must be at most 2 MiB.") }
                    user.picture = Data(bytes)
                }
                try await services.storage.users.update(user)
                return "/console/users/\(user.id)?notice=saved"
            }
        }
        router.post("/console/users/:id/friends") { request, context in
            try await console.action(request) { form in
                let user = try await find(context)
                guard let friendID = form["friend_id"], friendID != user.id, try await services.storage.users.find(id: friendID) != nil else {
                    throw ConsoleInputError("Pick another person.")
                }
                if form["action"] == "remove" {
                    try await services.storage.friendships.unfriend(user.id, friendID)
                } else {
                    try await services.storage.friendships.befriend(user.id, friendID, at: services.clock.now())
                }
                return "/console/users/\(user.id)?notice=saved"
            }
        }
    }

    private func find(_ context: GatehouseRequestContext) async throws -> UserRecord {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 32, let user = try await services.storage.users.find(id: id) else { throw ConsoleInputError("There is no person \(id).") }
        return user
    }

    private func values(_ user: UserRecord) async throws -> [String: Any] {
        let storage = services.storage
        let friendIDs = try await storage.friendships.friends(of: user.id)
        let everyone = try await storage.users.list()
        let byID = Dictionary(everyone.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var grants: [[String: Any]] = []
        for grant in try await storage.grants.grants(userID: user.id) {
            let app = try await storage.apps.find(id: grant.appID)
            grants.append(["appID": grant.appID, "appName": app?.name ?? grant.appID, "granted": grant.granted.joined(separator: ", ")])
        }
        let candidates = everyone.filter { $0.id != user.id && !friendIDs.contains($0.id) }.map { ["id": $0.id, "name": $0.fullName] }
        return [
            "user": [
                "id": user.id, "firstName": user.firstName, "middleName": user.middleName ?? "", "lastName": user.lastName,
                "email": user.email, "birthday": user.birthday ?? "", "gender": user.gender ?? "",
            ] as [String: Any],
            "name": user.fullName, "location": user.location?.name ?? "", "hometown": user.hometown?.name ?? "",
            "quotes": user.quotes ?? "",
            "friends": friendIDs.compactMap { byID[$0] }.map { ["id": $0.id, "name": $0.fullName] },
            "candidates": candidates, "hasCandidates": !candidates.isEmpty, "grants": grants,
        ]
    }
}
