import Foundation
import GatehouseCore
import Yams

extension ScenarioParser {
    static let subscriptionKeys: Set<String> = ["object", "callback_url", "fields", "verify_token", "verify"]

    /// `apps.<key>.subscriptions:` — a list of `{object, callback_url, fields, verify_token, verify}`, each checked
    /// by the rules `POST /{app-id}/subscriptions` applies (``WebhookSubscriptions``), with Facebook's wording, at
    /// most one per object.
    func subscriptions(_ node: Node, _ path: String, _ reader: inout ScenarioReader) -> [Scenario.Subscription] {
        var subscriptions: [Scenario.Subscription] = []
        var objects = Set<WebhookObject>()
        for (i, item) in (reader.sequence(node, path) ?? []).enumerated() {
            let at = "\(path)[\(i)]"
            guard let entries = reader.mapping(item, at, allowed: Self.subscriptionKeys) else { continue }
            var object: WebhookObject?, url: String?, token: String?, verify = true
            var fields: [(name: String, node: Node, path: String)]?
            for (key, _, value) in entries where !ScenarioReader.isNull(value) {
                let keyPath = at + "." + key
                switch key {
                case "object":
                    guard let name = reader.string(value, keyPath) else { continue }
                    do {
                        object = try WebhookSubscriptions.object(name)
                        if let object, !objects.insert(object).inserted {
                            reader.fail(
                                value, keyPath,
                                "this app already subscribes to \(object.rawValue) above; list its fields in one entry")
                        }
                    } catch {
                        reader.fail(value, keyPath, Self.refusal(error))
                    }
                case "callback_url":
                    guard let text = reader.string(value, keyPath) else { continue }
                    do {
                        try WebhookSubscriptions.check(callbackURL: text)
                        url = text
                    } catch {
                        reader.fail(value, keyPath, Self.refusal(error))
                    }
                case "fields":
                    fields = subscriptionFields(value, keyPath, &reader)
                case "verify_token": token = reader.string(value, keyPath)
                default: verify = reader.bool(value, keyPath) ?? true
                }
            }
            let present = Set(entries.filter { !ScenarioReader.isNull($0.value) }.map(\.key))
            for key in ["object", "callback_url", "fields", "verify_token"] where !present.contains(key) {
                reader.fail(item, at, "a subscription needs \(key)")
            }
            if let fields, fields.isEmpty, present.contains("fields") {
                reader.fail(item, at + ".fields", "a subscription needs at least one field")
            }
            var valid = true
            if let object, let fields {
                for field in fields {
                    do {
                        try WebhookSubscriptions.check(fields: [field.name], of: object)
                    } catch {
                        valid = false
                        reader.fail(field.node, field.path, Self.refusal(error) + "; " + Self.fieldsHint(object))
                    }
                }
            }
            guard valid, let object, let url, let token, let fields, !fields.isEmpty else { continue }
            subscriptions.append(
                Scenario.Subscription(
                    index: i, at: ScenarioReader.location(item)!, object: object, callbackURL: url,
                    fields: fields.map(\.name), verifyToken: token, verify: verify))
        }
        return subscriptions
    }

    /// The field names with their nodes and paths, each once.
    private func subscriptionFields(
        _ node: Node, _ path: String, _ reader: inout ScenarioReader
    ) -> [(name: String, node: Node, path: String)] {
        var fields: [(name: String, node: Node, path: String)] = []
        for (j, item) in (reader.sequence(node, path) ?? []).enumerated() {
            let itemPath = "\(path)[\(j)]"
            guard let name = reader.string(item, itemPath) else { continue }
            if fields.contains(where: { $0.name == name }) {
                reader.fail(item, itemPath, "\"\(name)\" is listed twice")
                continue
            }
            fields.append((name, item, itemPath))
        }
        return fields
    }

    /// The edge's refusal without its `(#100)`: a scenario problem is not a Graph error.
    static func refusal(_ error: any Error) -> String {
        guard let refused = error as? WebhookSubscriptionError else { return "\(error)" }
        return refused.message.replacingOccurrences(of: "(#\(refused.code)) ", with: "")
    }

    /// What an object's fields are, from ``WebhookObject``.
    static func fieldsHint(_ object: WebhookObject) -> String {
        switch object {
        case .user:
            "the user object's fields are " + WebhookObject.userFields.map(\.name).joined(separator: ", ")
        case .permissions:
            "the permissions object's fields are permission names and \(WebhookObject.connected)"
        }
    }
}
