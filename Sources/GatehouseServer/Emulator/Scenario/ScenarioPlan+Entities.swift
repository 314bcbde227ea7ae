import GatehouseCore
import Foundation
import GatehouseProtocol

extension ScenarioPlanBuilder {
    /// Apps: created when missing, else every stated setting compared. Secrets the file leaves out are kept.
    func planApps(newSecret: () -> String) {
        for app in scenario.apps {
            guard var record = server.apps[app.id] else {
                let created = AppRecord(
                    id: app.id, secret: app.secret ?? newSecret(), clientToken: app.clientToken ?? newSecret(),
                    name: app.name,
                    redirectURIs: app.redirectURIs, requireAppSecret: app.requireAppSecret,
                    requirePKCE: app.requirePKCE,
                    approvedPermissions: app.approvedPermissions, deauthorizeCallbackURL: app.deauthorizeCallbackURL,
                    dataDeletionCallbackURL: app.dataDeletionCallbackURL, createdAt: now, jsSDKDomains: app.jsSDKDomains
                )
                change(.createApp(created), "apps.\(app.key): no app \(app.id) on the server")
                continue
            }
            var differs: [String] = []
            func compare<T: Equatable>(
                _ field: String, _ path: WritableKeyPath<AppRecord, T>, _ wanted: T, _ shown: (T) -> String
            ) {
                guard record[keyPath: path] != wanted else { return }
                differs.append(
                    "\(field) is \(shown(record[keyPath: path])) on the server, \(shown(wanted)) in the file")
                record[keyPath: path] = wanted
            }
            compare("name", \.name, app.name) { Self.show($0) }
            if let secret = app.secret { compare("secret", \.secret, secret) { _ in "another value" } }
            if let token = app.clientToken { compare("client_token", \.clientToken, token) { _ in "another value" } }
            compare("redirect_uris", \.redirectURIs, app.redirectURIs) { Self.show($0) }
            compare("js_sdk_domains", \.jsSDKDomains, app.jsSDKDomains) { Self.show($0) }
            compare("approved_permissions", \.approvedPermissions, app.approvedPermissions) { Self.show($0) }
            compare("require_app_secret", \.requireAppSecret, app.requireAppSecret) { "\($0)" }
            compare("require_pkce", \.requirePKCE, app.requirePKCE) { "\($0)" }
            compare("callbacks.deauthorize", \.deauthorizeCallbackURL, app.deauthorizeCallbackURL) { Self.show($0) }
            compare("callbacks.data_deletion", \.dataDeletionCallbackURL, app.dataDeletionCallbackURL) { Self.show($0) }
            if !differs.isEmpty { change(.updateApp(record), "apps.\(app.key): " + differs.joined(separator: "; ")) }
        }
    }

    /// People: created when missing, else the fields the file states compared (left-out optional fields are kept).
    func planPeople(place: (String) -> Place) {
        for person in scenario.people {
            let path = "people." + person.key
            if let holder = server.userIDsByEmail[person.email.lowercased()], holder != person.id {
                problem(person.at, path + ".email", "\(person.email) belongs to person \(holder) on the server")
                continue
            }
            let owner = person.testUserOf.flatMap { appIDs[$0] }
            guard var record = server.users[person.id] else {
                var created = UserRecord(
                    id: person.id, email: person.email, passwordHash: "", firstName: person.firstName,
                    lastName: person.lastName, picture: person.picture, testUserOfAppID: owner,
                    createdAt: now, accountState: person.accountState ?? .active)
                for (name, text) in person.profile {
                    UserFieldValue.named(name)?.assign(text, to: &created, place: place)
                }
                change(.createUser(created, password: person.password), "\(path): no person \(person.id) on the server")
                if let secret = person.twoFactorSecret {
                    change(
                        .setTwoFactor(userID: person.id, secret: secret),
                        "\(path): two-factor login with the file's secret")
                }
                planScopedIDs(person, existing: [:])
                continue
            }
            var differs: [String] = []
            func compare<T: Equatable>(
                _ field: String, _ key: WritableKeyPath<UserRecord, T>, _ wanted: T?, _ shown: (T) -> String
            ) {
                guard let wanted, record[keyPath: key] != wanted else { return }
                differs.append("\(field) is \(shown(record[keyPath: key])) on the server, \(shown(wanted)) in the file")
                record[keyPath: key] = wanted
            }
            compare("email", \.email, person.email) { Self.show($0) }
            compare("first_name", \.firstName, person.firstName) { Self.show($0) }
            // The table's order, with last_name in its place among them (after middle_name).
            for entry in UserFieldValue.all {
                if entry.field == .lastName { compare("last_name", \.lastName, person.lastName) { Self.show($0) } }
                guard let text = person.profile[entry.field.name] else { continue }
                switch entry.kind {
                case .text(let path, _, _): compare(entry.field.name, path, .some(text)) { Self.show($0) }
                case .place(let path, _, _):
                    compare(entry.field.name, path, .some(place(text))) { Self.show($0?.name) }
                default: break
                }
            }
            compare("picture", \.picture, person.picture.map(Optional.some)) { $0 == nil ? "none" : "another picture" }
            compare("test_user_of", \.testUserOfAppID, owner.map(Optional.some)) { Self.show($0) }
            compare("account_state", \.accountState, person.accountState) { $0.rawValue }
            let passwordDiffers = person.statesPassword && server.passwordMatches[person.key] == false
            if passwordDiffers {
                differs.append("password differs (the new one signs \(person.key) out: tokens answer 190/460)")
            }
            if !differs.isEmpty {
                change(
                    .updateUser(record, password: passwordDiffers ? person.password : nil),
                    "\(path): " + differs.joined(separator: "; "))
            }
            if let secret = person.twoFactorSecret, server.twoFactorSecrets[person.id] != secret {
                change(
                    .setTwoFactor(userID: person.id, secret: secret),
                    "\(path): "
                        + (server.twoFactorSecrets[person.id] == nil
                            ? "no two-factor login on the server" : "another two-factor secret on the server"))
            }
            planScopedIDs(person, existing: server.scopedIDs[person.id] ?? [:])
        }
    }

    /// Fixed app-scoped ids. The store cannot change one once given, so a different one on the server is a problem.
    private func planScopedIDs(_ person: Scenario.Person, existing: [String: String]) {
        for (appKey, scoped) in person.scopedIDs.sorted(by: { $0.key < $1.key }) {
            guard let appID = appIDs[appKey] else { continue }
            let path = "people.\(person.key).scoped_ids.\(appKey)"
            if let current = existing[appID] {
                if current != scoped {
                    problem(
                        person.at, path,
                        "the server already gave \(person.key) app-scoped id \(current) in \(appKey); it cannot change")
                }
                continue
            }
            if let holder = server.scopedIDOwners[appID + "/" + scoped], holder != person.id {
                problem(person.at, path, "\(scoped) is person \(holder)'s app-scoped id on the server")
                continue
            }
            change(
                .assignScopedID(appID: appID, userID: person.id, scopedID: scoped),
                "\(path): \(person.key) has no app-scoped id \(scoped) on the server")
        }
    }
}
