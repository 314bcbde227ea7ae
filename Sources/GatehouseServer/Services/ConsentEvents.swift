import Foundation
import GatehouseCore

/// Hears grant changes through the one announcement of person changes (``PersonChangeListener``, which the
/// webhooks also listen to) and records `consent.granted` for a first grant and `consent.changed` for a grant whose
/// permissions changed or that was removed. A login that changes nothing (the same permissions again) is no event.
struct ConsentEvents: PersonChangeListener {
    let events: any EventRecorder

    func watchesGrants(appID: String) async -> Bool { true }

    func profileChanged(from old: UserRecord, to new: UserRecord) async {}

    func grantChanged(from old: GrantRecord?, to new: GrantRecord?) async {
        switch (old, new) {
        case (nil, let new?):
            await events.record(
                .consentGranted, appID: new.appID, personID: new.userID, Self.details(new, change: "granted"))
        case (let old?, nil):
            await events.record(.consentChanged, appID: old.appID, personID: old.userID, ["change": "removed"])
        case (let old?, let new?)
        where Set(old.granted) != Set(new.granted) || Set(old.declined) != Set(new.declined):
            await events.record(
                .consentChanged, appID: new.appID, personID: new.userID, Self.details(new, change: "permissions"))
        default:
            break
        }
    }

    /// The permissions as they stand: names only.
    static func details(_ grant: GrantRecord, change: String) -> [String: String] {
        [
            "change": change, "granted": grant.granted.joined(separator: ","),
            "declined": grant.declined.joined(separator: ","),
        ]
    }
}
