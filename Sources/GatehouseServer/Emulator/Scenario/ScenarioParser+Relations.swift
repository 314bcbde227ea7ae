import GatehouseCore
import Foundation
import GatehouseProtocol
import Yams

extension ScenarioParser {
    /// `friendships:` — a list of `[a, b]` pairs of person keys.
    func friendships(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.Friendship] {
        var pairs: [Scenario.Friendship] = []
        for (i, item) in (reader.sequence(node, "friendships") ?? []).enumerated() {
            let path = "friendships[\(i)]"
            guard let names = reader.strings(item, path) else { continue }
            guard names.count == 2, names[0] != names[1] else {
                reader.fail(item, path, "a friendship is a pair of two different person keys, e.g. [alice, bob]");
                continue
            }
            pairs.append(Scenario.Friendship(index: i, a: names[0], b: names[1], at: ScenarioReader.location(item)!))
        }
        return pairs
    }

    /// `grants:` — what people granted and declined to apps.
    func grants(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.Grant] {
        var grants: [Scenario.Grant] = []
        for (i, item) in (reader.sequence(node, "grants") ?? []).enumerated() {
            let path = "grants[\(i)]"
            guard
                let fields = reader.mapping(
                    item, path, allowed: ["app", "person", "granted", "declined", "default_audience"])
            else { continue }
            var app: String?, person: String?, granted: [String] = [], declined: [String] = [], audience: Audience?
            for (field, _, v) in fields where !ScenarioReader.isNull(v) {
                let at = path + "." + field
                switch field {
                case "app": app = reader.string(v, at)
                case "person": person = reader.string(v, at)
                case "granted": granted = permissions(v, at, &reader)
                case "declined":
                    declined = permissions(v, at, &reader)
                    if declined.contains(Permission.publicProfile) {
                        reader.fail(v, at, "public_profile cannot be declined")
                    }
                default:
                    guard let text = reader.string(v, at) else { continue }
                    audience = Audience(wireName: text)
                    if audience == nil { reader.fail(v, at, "default_audience is only_me, friends or everyone") }
                }
            }
            let declinedNames = Set(declined)
            for both in granted where declinedNames.contains(both) {
                reader.fail(item, path, "\"\(both)\" is both granted and declined")
            }
            guard let app, let person else { reader.fail(item, path, "a grant names an app and a person"); continue }
            // Facebook always grants public_profile with anything else.
            if !granted.contains(Permission.publicProfile) { granted.insert(Permission.publicProfile, at: 0) }
            grants.append(
                Scenario.Grant(
                    index: i, app: app, person: person, at: ScenarioReader.location(item)!, granted: granted,
                    declined: declined, defaultAudience: audience))
        }
        return grants
    }

    /// `tokens:` — user access tokens whose values tests hard-code.
    func tokens(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.Token] {
        var tokens: [Scenario.Token] = []
        for (i, item) in (reader.sequence(node, "tokens") ?? []).enumerated() {
            let path = "tokens[\(i)]"
            guard let fields = reader.mapping(item, path, allowed: ["app", "person", "value", "expires_in"]) else {
                continue
            }
            var app: String?, person: String?, value: String?, lifetime: TimeInterval? = Lifetimes.longLivedToken
            for (field, _, v) in fields where !ScenarioReader.isNull(v) {
                let at = path + "." + field
                guard let text = reader.string(v, at) else { continue }
                switch field {
                case "app": app = text
                case "person": person = text
                case "value":
                    // As long as a minted token's random part, so a fixed value is no easier to guess than a real one.
                    if text.count < 32 || text.count > 512 {
                        reader.fail(v, at, "a token value needs 32 to 512 characters (this one has \(text.count))")
                    } else if !text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) }) {
                        reader.fail(v, at, "a token value uses only letters, digits, - _ . ~")
                    } else {
                        value = text
                    }
                default:
                    if text == "never" {
                        lifetime = nil
                    } else if let seconds = DurationParser.seconds(text), seconds > 0 {
                        lifetime = seconds
                    } else {
                        reader.fail(v, at, "expected a duration such as 60d, or never")
                    }
                }
            }
            guard let app, let person, let value else {
                if !reader.errors.contains(where: { $0.path.hasPrefix(path) }) {
                    reader.fail(item, path, "a token names an app, a person and a value")
                }
                continue
            }
            tokens.append(
                Scenario.Token(
                    index: i, app: app, person: person, at: ScenarioReader.location(item)!, value: value,
                    lifetime: lifetime))
        }
        return tokens
    }

    /// `errors:` — Graph errors injected for an app, a person or a token.
    func injectedErrors(_ node: Node, _ reader: inout ScenarioReader) -> [Scenario.InjectedError] {
        var errors: [Scenario.InjectedError] = []
        for (i, item) in (reader.sequence(node, "errors") ?? []).enumerated() {
            let path = "errors[\(i)]"
            guard let fields = reader.mapping(item, path, allowed: ["app", "person", "token", "error", "times"]) else {
                continue
            }
            var targets: [Scenario.InjectedError.Target] = [], error: InjectableError?, times: Int?
            for (field, _, v) in fields where !ScenarioReader.isNull(v) {
                let at = path + "." + field
                if field == "times" {
                    times = reader.int(v, at)
                    if let n = times, !(1...1_000_000).contains(n) {
                        reader.fail(v, at, "times is a whole number from 1 to 1000000, or left out for until cleared")
                    }
                    continue
                }
                guard let text = reader.string(v, at) else { continue }
                switch field {
                case "app": targets.append(.app(text))
                case "person": targets.append(.person(text))
                case "token": targets.append(.token(text))
                default:
                    error = InjectableError(spec: text)
                    if error == nil {
                        reader.fail(
                            v, at,
                            "unknown error \"\(text)\"; use one of "
                                + InjectableError.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                }
            }
            guard targets.count == 1, let target = targets.first else {
                reader.fail(item, path, "name exactly one of app, person or token"); continue
            }
            guard let error else {
                if !fields.contains(where: { $0.key == "error" }) {
                    reader.fail(item, path, "which error? e.g. error: 190/460")
                }; continue
            }
            errors.append(
                Scenario.InjectedError(
                    index: i, at: ScenarioReader.location(item)!, target: target, error: error, times: times))
        }
        return errors
    }
}
