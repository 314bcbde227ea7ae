import Foundation
import GatehouseCore
import GatehouseProtocol

extension ScenarioPlanBuilder {
    /// Webhooks subscriptions: created when missing, else callback, verify token, fields and `active` compared
    /// (the fields are exactly the file's, whatever their order). Planned last, so the people and grants the
    /// same apply writes are the state a subscription starts from, not changes it is notified of. Objects the
    /// file does not list for an app are left alone, as everything else the file does not mention.
    func planSubscriptions() {
        for app in scenario.apps {
            for wanted in app.subscriptions {
                let path = "apps.\(app.key).subscriptions[\(wanted.index)]"
                guard server.keepsWebhooks else {
                    problem(wanted.at, path, "this database keeps no Webhooks subscriptions")
                    continue
                }
                if !wanted.verify, !server.emulatorControls {
                    problem(
                        wanted.at, path + ".verify",
                        "verify: false is for development mode only; in production every callback is verified")
                    continue
                }
                let existing = server.subscriptions[app.id]?.first { $0.object == wanted.object }
                // A field already subscribed keeps the version it was subscribed at, as on Facebook.
                let fields = wanted.fields.map { name in
                    existing?.fields.first { $0.name == name }
                        ?? WebhookField(name: name, version: GraphAPIVersion.current)
                }
                let record = WebhookSubscriptionRecord(
                    appID: app.id, object: wanted.object, callbackURL: wanted.callbackURL,
                    verifyToken: wanted.verifyToken, fields: fields, active: true,
                    createdAt: existing?.createdAt ?? now, updatedAt: now)
                let verification = ScenarioChange.Verification(at: wanted.at, path: path + ".callback_url")
                guard let existing else {
                    change(
                        .subscribe(record, verification: wanted.verify ? verification : nil),
                        "\(path): \(app.key) has no \(wanted.object.rawValue) subscription on the server")
                    continue
                }
                var differs: [String] = []
                if existing.callbackURL != wanted.callbackURL {
                    differs.append(
                        "callback_url is \(Self.show(existing.callbackURL)) on the server, "
                            + "\(Self.show(wanted.callbackURL)) in the file")
                }
                if existing.verifyToken != wanted.verifyToken { differs.append("verify_token is another value") }
                if Set(existing.fields.map(\.name)) != Set(wanted.fields) {
                    differs.append(
                        "fields are \(Self.show(existing.fields.map(\.name))) on the server, "
                            + "\(Self.show(wanted.fields)) in the file")
                }
                if !existing.active { differs.append("inactive on the server") }
                guard !differs.isEmpty else { continue }
                // As on the edge, only a new callback or verify token is verified again.
                let moved = existing.callbackURL != wanted.callbackURL || existing.verifyToken != wanted.verifyToken
                change(
                    .subscribe(record, verification: wanted.verify && moved ? verification : nil),
                    "\(path): " + differs.joined(separator: "; "))
            }
        }
    }
}
