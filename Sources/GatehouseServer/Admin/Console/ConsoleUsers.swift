import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// Console pages for people and test users: create, edit profile fields and picture, friendships.
struct ConsoleUsers: Sendable {
    let console: ConsoleController
    var services: GatehouseServices { console.services }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(PagePath.Console.users), use: list)
        router.post(RouterPath(PagePath.Console.users), use: create)
        router.get(RouterPath(PagePath.Console.user), use: show)
        router.get(RouterPath(PagePath.Console.userPicturePNG), use: picture)
        router.post(RouterPath(PagePath.Console.user), use: saveProfile)
        router.post(RouterPath(PagePath.Console.userPicture), use: savePicture)
        router.post(RouterPath(PagePath.Console.userPassword), use: changePassword)
        router.post(RouterPath(PagePath.Console.userFriends), use: changeFriendship)
        router.post(RouterPath(PagePath.Console.userState), use: changeAccountState)
        router.post(RouterPath(PagePath.Console.userTwoFactor), use: changeTwoFactor)
    }

    /// `GET /console/users`: everyone, test users marked with their app.
    @Sendable func list(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.page(request, "console-users", title: "People", nav: "users") {
            let apps = try await services.storage.apps.list()
            let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            return [
                "users": try await services.storage.users.list().map { user -> [String: Any] in
                    [
                        "id": user.id, "name": user.fullName, "email": user.email,
                        "kind": user.testUserOfAppID.map { "test user of \(names[$0] ?? $0)" } ?? "person",
                    ]
                },
                "apps": apps.map { ["id": $0.id, "name": $0.name] },
            ]
        }
    }

    /// `POST /console/users`: a person, or a test user of an app.
    @Sendable func create(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let user = try await services.accounts.createUser(
                NewUser(
                    email: form["email"] ?? "", password: form["password"] ?? "",
                    firstName: (form["first_name"] ?? "").trimmingCharacters(in: .whitespaces),
                    lastName: (form["last_name"] ?? "").trimmingCharacters(in: .whitespaces),
                    testUserOfAppID: ConsoleApps.optional(form["test_user_of"])))
            return PagePath.Console.user(user.id, notice: "created")
        }
    }

    /// `GET /console/users/:id`: the profile, friends and grants.
    @Sendable func show(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 32, let user = try await services.storage.users.find(id: id) else {
            return try await console.refused(request, "There is no person \(id).", status: .notFound)
        }
        return try await console.page(request, "console-user", title: user.fullName, nav: "users") {
            try await values(user)
        }
    }

    /// `GET /console/users/:id/picture.png`: the uploaded picture or the generated avatar.
    @Sendable func picture(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        guard await console.access.allows(request) else { return console.denied() }
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 32, let user = try await services.storage.users.find(id: id) else {
            return Response(status: .notFound)
        }
        let bytes =
            user.picture.map { [UInt8]($0) }
            ?? AvatarRenderer.render(
                seed: "user:" + user.id, initials: String(user.firstName.prefix(1) + user.lastName.prefix(1)), size: 144
            )
        return Response(
            status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `POST /console/users/:id`: the profile form, checked whole (``ProfileForm``) before anything is saved.
    @Sendable func saveProfile(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            var user = try await find(context)
            let profile = try ProfileForm(form)
            profile.apply(to: &user, places: services.accounts.place(named:))
            let previousEmail = try await services.storage.users.find(id: user.id)?.email
            do {
                try await services.storage.users.update(user)
            } catch StorageError.conflict {
                throw ConsoleInputError("Another person already uses \(profile.email).")
            }
            if let previousEmail, !AccountMailer.sameAddress(previousEmail, user.email) {
                try await services.accounts.addressChanged(user)
            }
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    /// `POST /console/users/:id/picture`: uploads a PNG (at most 2 MiB) or clears the picture.
    @Sendable func savePicture(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request, limit: 3 << 20) { form in
            var user = try await find(context)
            if form["action"] == "clear" {
                user.picture = nil
            } else {
                guard let bytes = form.files["picture"], !bytes.isEmpty else {
                    throw ConsoleInputError("Choose a PNG file to upload.")
                }
                guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                    throw ConsoleInputError("The picture must be a PNG file.")
                }
                guard bytes.count <= 2 << 20 else { throw ConsoleInputError("The picture must be at most 2 MiB.") }
                user.picture = Data(bytes)
            }
            try await services.storage.users.update(user)
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    /// `POST /console/users/:id/password`: a new password, which signs the person out everywhere
    /// (``AccountService/changePassword(of:to:)``), so an app's handling of 190/460 can be tried.
    @Sendable func changePassword(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let user = try await find(context)
            try await services.accounts.changePassword(of: user, to: form["password"] ?? "")
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    /// `POST /console/users/:id/state`: puts the person in an ``AccountState`` (``AccountService/setAccountState(of:to:at:)``),
    /// so an app's handling of 190/459, 464, 465 and 467 and the dialog's pages for them can be tried.
    @Sendable func changeAccountState(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let user = try await find(context)
            guard let state = form["state"].flatMap(AccountState.init(rawValue:)) else {
                throw ConsoleInputError("Pick an account state.")
            }
            try await services.accounts.setAccountState(of: user, to: state)
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    /// `POST /console/users/:id/two-factor`: turns the person's two-factor login on (a fresh secret, confirmed at
    /// once; development mode then shows the code the checkpoint accepts) or off (issue 32).
    @Sendable func changeTwoFactor(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let user = try await find(context)
            if form["action"] == "off" {
                try await services.accounts.disableTwoFactor(for: user)
            } else {
                try await services.accounts.enableTwoFactor(for: user)
            }
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    /// `POST /console/users/:id/friends`: befriends or unfriends another person.
    @Sendable func changeFriendship(_ request: Request, _ context: GatehouseRequestContext) async throws -> Response {
        try await console.action(request) { form in
            let user = try await find(context)
            guard let friendID = form["friend_id"], friendID != user.id,
                try await services.storage.users.find(id: friendID) != nil
            else {
                throw ConsoleInputError("Pick another person.")
            }
            if form["action"] == "remove" {
                try await services.storage.friendships.unfriend(user.id, friendID)
            } else {
                try await services.storage.friendships.befriend(user.id, friendID, at: services.clock.now())
            }
            return PagePath.Console.user(user.id, notice: "saved")
        }
    }

    private func find(_ context: GatehouseRequestContext) async throws -> UserRecord {
        let id = context.parameters.get("id") ?? ""
        guard id.count <= 32, let user = try await services.storage.users.find(id: id) else {
            throw ConsoleInputError("There is no person \(id).")
        }
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
            grants.append([
                "appID": grant.appID, "appName": app?.name ?? grant.appID,
                "granted": grant.granted.joined(separator: ", "),
            ])
        }
        let candidates = everyone.filter { $0.id != user.id && !friendIDs.contains($0.id) }.map {
            ["id": $0.id, "name": $0.fullName]
        }
        return [
            "user": ["id": user.id, "firstName": user.firstName, "lastName": user.lastName, "email": user.email]
                as [String: Any],
            "name": user.fullName,
            // The field table's text and place fields, one input each; a place shows its name.
            "profileFields": UserFieldValue.editable.map { entry in
                ["name": entry.field.name, "title": entry.title, "value": entry.typed(user)]
            },
            "twoFactorOn": try await services.accounts.hasTwoFactor(user),
            "twoFactorCode": try await services.accounts.developmentLoginCode(for: user) ?? "",
            "accountStates": AccountState.allCases.map {
                ["value": $0.rawValue, "title": $0.title, "selected": $0 == user.accountState]
            },
            "friends": friendIDs.compactMap { byID[$0] }.map { ["id": $0.id, "name": $0.fullName] },
            "candidates": candidates, "hasCandidates": !candidates.isEmpty, "grants": grants,
        ]
    }
}

/// The profile form, decoded and checked as a whole: a bad field refuses the form and changes nothing.
/// Besides the account's name and email it has one input per text or place field of the field table.
struct ProfileForm: Equatable {
    var firstName: String
    var lastName: String
    var email: String
    /// Field name → the typed value (nil when left empty).
    var profile: [String: String?]

    /// - Throws: ``ConsoleInputError`` naming the first field that is wrong.
    init(_ form: FormBody) throws {
        firstName = (form["first_name"] ?? "").trimmingCharacters(in: .whitespaces)
        lastName = (form["last_name"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !firstName.isEmpty, !lastName.isEmpty, firstName.count <= 80, lastName.count <= 80 else {
            throw ConsoleInputError("First and last name are required (at most 80 characters each).")
        }
        email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        guard email.contains("@"), email.count <= 254 else {
            throw ConsoleInputError("\"\(email)\" is not an email address.")
        }
        profile = [:]
        for entry in UserFieldValue.editable {
            let value = ConsoleApps.optional(form[entry.field.name])
            if let value, entry.problem(value) != nil, let rule = entry.rule {
                let name = entry.field.name.replacingOccurrences(of: "_", with: " ")
                throw ConsoleInputError(name.prefix(1).uppercased() + name.dropFirst() + " " + rule.message + ".")
            }
            profile[entry.field.name] = .some(value)
        }
    }

    /// Writes the form into `user`; `places` turns a typed place name into a `Place`.
    func apply(to user: inout UserRecord, places: (String) -> Place) {
        user.firstName = firstName
        user.lastName = lastName
        user.email = email
        for entry in UserFieldValue.editable {
            entry.assign(profile[entry.field.name] ?? nil, to: &user, place: places)
        }
    }
}
