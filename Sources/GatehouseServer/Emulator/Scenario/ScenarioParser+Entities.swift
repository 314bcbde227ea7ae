import GatehouseCore
import Foundation
import GatehouseProtocol
import Yams

extension ScenarioParser {
    /// `apps:` — a mapping from app key to settings.
    func apps(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.App] {
        guard let entries = reader.mapping(node, "apps") else { return [] }
        var apps: [Scenario.App] = []
        for (key, keyNode, value) in entries {
            let path = "apps." + key
            guard Self.isKey(key) else { reader.fail(keyNode, path, "app keys use letters, digits, - and _"); continue }
            guard let fields = reader.mapping(value, path, allowed: Self.appKeys) else { continue }
            var app = Scenario.App(
                key: key, at: ScenarioReader.location(keyNode)!, id: ScenarioIDs.app(key: key), name: key)
            var named = false
            for (field, fieldNode, v) in fields where !ScenarioReader.isNull(v) {
                let at = path + "." + field
                switch field {
                case "id":
                    if let id = reader.string(v, at) {
                        if Self.isDigits(id, 5...20) {
                            app.id = id
                        } else {
                            reader.fail(v, at, "an app id is 5 to 20 digits, not starting with 0")
                        }
                    }
                case "name":
                    if let name = reader.string(v, at) {
                        named = true
                        if name.trimmingCharacters(in: .whitespaces).isEmpty {
                            reader.fail(v, at, "an app needs a name")
                        } else {
                            app.name = name
                        }
                    }
                case "secret", "client_token":
                    if let text = reader.string(v, at) {
                        if text.count < 16 || text.count > 128 || text.contains("|")
                            || text.contains(where: \.isWhitespace)
                        {
                            reader.fail(v, at, "expected 16 to 128 characters without spaces or |")
                        } else if field == "secret" {
                            app.secret = text
                        } else {
                            app.clientToken = text
                        }
                    }
                case "redirect_uris":
                    for (i, item) in (reader.sequence(v, at) ?? []).enumerated() {
                        guard let uri = reader.string(item, "\(at)[\(i)]") else { continue }
                        if !RedirectURIPolicy.isAcceptableRegistration(uri) {
                            reader.fail(
                                item, "\(at)[\(i)]", "a redirect URI must be an absolute URL without a fragment")
                        }
                        app.redirectURIs.append(uri)
                    }
                case "js_sdk_domains":
                    for (i, item) in (reader.sequence(v, at) ?? []).enumerated() {
                        guard let domain = reader.string(item, "\(at)[\(i)]") else { continue }
                        if JavaScriptSDKDomains.canonical(domain) == nil {
                            reader.fail(
                                item, "\(at)[\(i)]",
                                "a JavaScript SDK domain is an http(s) URL such as https://shop.example")
                        }
                        app.jsSDKDomains.append(domain)
                    }
                case "approved_permissions": app.approvedPermissions = permissions(v, at, &reader)
                case "subscriptions": app.subscriptions = subscriptions(v, at, &reader)
                case "require_app_secret": app.requireAppSecret = reader.bool(v, at) ?? false
                case "require_pkce": app.requirePKCE = reader.bool(v, at) ?? false
                case "roles":
                    for (person, personNode, roleNode) in reader.mapping(v, at) ?? [] {
                        guard let name = reader.string(roleNode, at + "." + person) else { continue }
                        guard let role = AppRole(rawValue: name) else {
                            reader.fail(roleNode, at + "." + person, "a role is admin, developer or tester"); continue
                        }
                        app.roles.append((person, role))
                        _ = personNode
                    }
                case "callbacks":
                    for (kind, _, urlNode) in reader.mapping(v, at, allowed: ["deauthorize", "data_deletion"]) ?? []
                    where !ScenarioReader.isNull(urlNode) {
                        guard let url = reader.string(urlNode, at + "." + kind) else { continue }
                        guard Self.isWebURL(url) else {
                            reader.fail(urlNode, at + "." + kind, "expected an http(s) URL"); continue
                        }
                        if kind == "deauthorize" {
                            app.deauthorizeCallbackURL = url
                        } else {
                            app.dataDeletionCallbackURL = url
                        }
                    }
                default: _ = fieldNode
                }
            }
            if !named { reader.fail(keyNode, path, "an app needs a name") }
            apps.append(app)
        }
        return apps
    }

    /// `people:` — a mapping from person key to profile.
    func people(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.Person] {
        guard let entries = reader.mapping(node, "people") else { return [] }
        var people: [Scenario.Person] = []
        for (key, keyNode, value) in entries {
            let path = "people." + key
            guard Self.isKey(key) else {
                reader.fail(keyNode, path, "person keys use letters, digits, - and _"); continue
            }
            guard let fields = reader.mapping(value, path, allowed: Self.personKeys) else { continue }
            var person = Scenario.Person(
                key: key, at: ScenarioReader.location(keyNode)!, id: ScenarioIDs.person(key: key), email: "",
                password: "\(key)-password", firstName: "", lastName: "")
            for (field, _, v) in fields where !ScenarioReader.isNull(v) {
                let at = path + "." + field
                if field == "scoped_ids" {
                    for (app, _, idNode) in reader.mapping(v, at) ?? [] {
                        guard let id = reader.string(idNode, at + "." + app) else { continue }
                        if Self.isDigits(id, 5...20) {
                            person.scopedIDs[app] = id
                        } else {
                            reader.fail(
                                idNode, at + "." + app, "an app-scoped id is 5 to 20 digits, not starting with 0")
                        }
                    }
                    continue
                }
                guard let text = reader.string(v, at) else { continue }
                switch field {
                case "id":
                    if Self.isDigits(text, 5...20) {
                        person.id = text
                    } else {
                        reader.fail(v, at, "a person id is 5 to 20 digits, not starting with 0")
                    }
                case "email":
                    if text.contains("@"), text.count <= 254, !text.contains(where: \.isWhitespace) {
                        person.email = text
                    } else {
                        reader.fail(v, at, "\"\(text)\" is not an email address")
                    }
                case "password":
                    if text.count >= 6 {
                        person.password = text; person.statesPassword = true
                    } else {
                        reader.fail(v, at, "passwords need at least 6 characters")
                    }
                case "first_name": person.firstName = text
                case "last_name": person.lastName = text
                case "test_user_of": person.testUserOf = text
                case "account_state":
                    if let state = AccountState(rawValue: text) {
                        person.accountState = state
                    } else {
                        reader.fail(
                            v, at,
                            "account_state must be one of \(AccountState.allCases.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                case "two_factor_secret":
                    if let bytes = Base32.decode(text), bytes.count >= 10, bytes.count <= 64 {
                        person.twoFactorSecret = Base32.encode(bytes)
                    } else {
                        reader.fail(
                            v, at,
                            "two_factor_secret must be base32 (RFC 4648) of 10 to 64 bytes, e.g. 32 letters A-Z and digits 2-7"
                        )
                    }
                case let name where UserFieldValue.named(name)?.columns.isEmpty == false:
                    // A profile field of the field table (text or place), checked by the table's rule.
                    if let problem = UserFieldValue.named(name)?.problem(text) {
                        reader.fail(v, at, problem)
                    } else {
                        person.profile[name] = text
                    }
                default:  // picture
                    guard let data = readFile(text) else {
                        reader.fail(v, at, "cannot read \(text) (paths are relative to the scenario file)"); continue
                    }
                    guard data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                        reader.fail(v, at, "\(text) is not a PNG file"); continue
                    }
                    guard data.count <= 2 << 20 else { reader.fail(v, at, "\(text) is larger than 2 MiB"); continue }
                    person.picture = data
                }
            }
            if person.email.isEmpty, !fields.contains(where: { $0.key == "email" }) {
                reader.fail(keyNode, path, "a person needs an email")
            }
            if person.firstName.isEmpty || person.lastName.isEmpty {
                reader.fail(keyNode, path, "a person needs first_name and last_name")
            }
            people.append(person)
        }
        return people
    }
}
