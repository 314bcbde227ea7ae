import Foundation
import GatehouseProtocol

/// The Webhooks objects (topics) Gatehouse notifies about, and the fields an app may subscribe to on each.
///
/// From Facebook's Webhooks reference (developers.facebook.com/docs/graph-api/webhooks/reference/user and
/// …/reference/permissions): the `user` topic's fields are profile fields; the `permissions` topic's fields are
/// permission names, plus `connected` (the person connected to or removed the app). Gatehouse offers the user
/// fields it stores; the one place they are listed is ``userFields``.
package enum WebhookObject: String, CaseIterable, Sendable, Codable {
    case user
    case permissions

    /// The `user` topic's fields Gatehouse stores, in Facebook's reference order.
    package static let userFields: [UserField] = [
        .birthday, .email, .firstName, .gender, .hometown, .lastName, .link, .location, .name, .picture, .quotes,
    ]
    /// The `permissions` field that says a person connected to the app (logged in) or removed it.
    package static let connected = "connected"

    /// Whether an app may subscribe to `field` on this object.
    package func accepts(field: String) -> Bool {
        switch self {
        case .user: Self.userFields.contains { $0.name == field }
        case .permissions: field == Self.connected || Permission.isKnown(field)
        }
    }

    /// The names in `{…}` of Facebook's "must be one of" error.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// One field of a subscription as `GET /{app-id}/subscriptions` lists it.
package struct WebhookField: Sendable, Codable, Equatable {
    package var name: String
    /// The Graph API version the field was subscribed at.
    package var version: String

    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// Which subscribed user fields changed between two versions of a person, in ``WebhookObject/userFields`` order.
package enum WebhookUserChanges {
    /// The webhook fields whose Graph value differs between `old` and `new` (derived ones too: a new middle
    /// name changes `name`).
    package static func changedFields(from old: UserRecord, to new: UserRecord) -> [String] {
        let epoch = Date(timeIntervalSince1970: 0)
        func context(_ user: UserRecord) -> UserFieldContext {
            UserFieldContext(user: user, scopedID: "", appID: "", baseURL: "", now: epoch)
        }
        return WebhookObject.userFields.compactMap { field in
            if field == .picture { return old.picture == new.picture ? nil : field.name }
            guard let value = UserFieldValue.named(field.name) else { return nil }
            return value.read(context(old)) == value.read(context(new)) ? nil : field.name
        }
    }

    /// The fields of `changed` an app whose person granted `granted` may hear of (`email` needs `email`).
    package static func visible(_ changed: [String], granted: [String]) -> [String] {
        changed.filter { name in
            guard let field = UserField.named(name) else { return false }
            return field.permission == Permission.publicProfile || granted.contains(field.permission)
        }
    }
}
