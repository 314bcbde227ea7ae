import GatehouseCore
import Foundation
import GatehouseProtocol

/// A person as one app sees them.
struct UserNode: Sendable {
    var user: UserRecord
    var scopedID: String
    var appID: String
}

/// Which user fields exist and which permission each needs, as on Facebook's User node.
enum UserFields {
    /// Field name → the permission that must be granted to read it.
    static let rules: [String: String] = [
        "id": Permission.publicProfile, "name": Permission.publicProfile, "first_name": Permission.publicProfile,
        "last_name": Permission.publicProfile, "middle_name": Permission.publicProfile,
        "name_format": Permission.publicProfile, "short_name": Permission.publicProfile,
        "picture": Permission.publicProfile, "email": "email", "birthday": "user_birthday", "gender": "user_gender",
        "link": "user_link", "location": "user_location", "hometown": "user_hometown", "age_range": "user_age_range",
        "friends": "user_friends", "permissions": Permission.publicProfile,
        // Seed 002 reads it with basic permissions through FQL; empty until set in the console.
        "quotes": Permission.publicProfile,
    ]

    /// Names some clients still request; Facebook drops them silently.
    static let silentlyIgnored: Set<String> = ["verified", "locale", "timezone", "updated_time", "username", "installed", "install_type"]

    /// Facebook's age buckets, derived from a full birthday.
    static func ageRange(birthday: String?, now: Date) -> JSONValue? {
        guard let birthday, birthday.count == 10 else { return nil }
        let parts = birthday.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let born = calendar.date(from: DateComponents(year: parts[2], month: parts[0], day: parts[1])),
              let age = calendar.dateComponents([.year], from: born, to: now).year
        else { return nil }
        if age >= 21 { return ["min": 21] }
        if age >= 18 { return ["min": 18, "max": 20] }
        return ["min": 13, "max": 17]
    }
}

/// Picture sizes for `type=`, as Facebook serves them.
enum PictureSize {
    static func pixels(type: String?, width: String?, height: String?) -> (Int, Int) {
        let w = width.flatMap(Int.init), h = height.flatMap(Int.init)
        if w != nil || h != nil {
            let side = min(max(w ?? h ?? 50, h ?? w ?? 50, 16), 1024)
            return (side, side)
        }
        switch type {
        case "normal": return (100, 100)
        case "large": return (200, 200)
        case "album", "small", "square": return (50, 50)
        default: return (50, 50)
        }
    }
}
