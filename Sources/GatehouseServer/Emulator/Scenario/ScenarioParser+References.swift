import GatehouseCore
import Foundation

extension ScenarioParser {
    /// Cross-entry rules: every key named exists, and no id, email, token value or grant appears twice.
    /// Checked on the whole file before anything is written, so a mistake in the last entry changes nothing.
    func checkReferences(_ scenario: Scenario, _ reader: inout ScenarioReader) {
        let apps = Set(scenario.apps.map(\.key)), people = Set(scenario.people.map(\.key))
        func app(_ key: String, _ at: ScenarioLocation, _ path: String) {
            if !apps.contains(key) { reader.fail(at, path, "no app \"\(key)\" under apps") }
        }
        func person(_ key: String, _ at: ScenarioLocation, _ path: String) {
            if !people.contains(key) { reader.fail(at, path, "no person \"\(key)\" under people") }
        }
        var appIDs: [String: String] = [:]
        for entry in scenario.apps {
            if let other = appIDs.updateValue(entry.key, forKey: entry.id) {
                reader.fail(entry.at, "apps." + entry.key, "id \(entry.id) is also app \(other)'s")
            }
            for role in entry.roles { person(role.person, entry.at, "apps.\(entry.key).roles") }
        }
        var personIDs: [String: String] = [:], emails: [String: String] = [:], scoped: [String: String] = [:]
        for entry in scenario.people {
            let path = "people." + entry.key
            if let other = personIDs.updateValue(entry.key, forKey: entry.id) {
                reader.fail(entry.at, path, "id \(entry.id) is also \(other)'s")
            }
            if let other = emails.updateValue(entry.key, forKey: entry.email.lowercased()) {
                reader.fail(entry.at, path, "email \(entry.email) is also \(other)'s")
            }
            if let owner = entry.testUserOf { app(owner, entry.at, path + ".test_user_of") }
            for (appKey, id) in entry.scopedIDs.sorted(by: { $0.key < $1.key }) {
                app(appKey, entry.at, path + ".scoped_ids")
                if let other = scoped.updateValue(entry.key, forKey: appKey + "/" + id) {
                    reader.fail(entry.at, path + ".scoped_ids", "\(id) is also \(other)'s id in \(appKey)")
                }
            }
        }
        var pairs = Set<[String]>()
        for pair in scenario.friendships {
            let i = pair.index
            person(pair.a, pair.at, "friendships[\(i)]")
            person(pair.b, pair.at, "friendships[\(i)]")
            if !pairs.insert([pair.a, pair.b].sorted()).inserted {
                reader.fail(pair.at, "friendships[\(i)]", "\(pair.a) and \(pair.b) are already friends above")
            }
        }
        var granted = Set<[String]>()
        for grant in scenario.grants {
            let i = grant.index
            app(grant.app, grant.at, "grants[\(i)].app")
            person(grant.person, grant.at, "grants[\(i)].person")
            if !granted.insert([grant.app, grant.person]).inserted {
                reader.fail(grant.at, "grants[\(i)]", "\(grant.person) already has a grant for \(grant.app) above")
            }
        }
        var values = Set<String>()
        for token in scenario.tokens {
            let i = token.index
            let path = "tokens[\(i)]"
            app(token.app, token.at, path + ".app")
            person(token.person, token.at, path + ".person")
            if !values.insert(token.value).inserted {
                reader.fail(token.at, path + ".value", "this value is already used by another token")
            }
            // Without a grant the token would answer every call with 190/458 (app not authorized).
            if apps.contains(token.app), people.contains(token.person), !granted.contains([token.app, token.person]) {
                reader.fail(token.at, path, "\(token.person) has no grant for \(token.app); add one under grants")
            }
        }
        for error in scenario.errors {
            let i = error.index
            let path = "errors[\(i)]"
            switch error.target {
            case .app(let key): app(key, error.at, path + ".app")
            case .person(let key): person(key, error.at, path + ".person")
            case .token(let value):
                if !values.contains(value) { reader.fail(error.at, path + ".token", "not a value listed under tokens") }
            }
        }
    }
}
