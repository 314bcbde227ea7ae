import GatehouseCore
import Foundation
import GatehouseProtocol

/// A person as one app sees them.
struct UserNode: Sendable {
    var user: UserRecord
    var scopedID: String
    var appID: String
}

/// Which user fields exist and which permission each needs, as on Facebook's User node: read from the
/// shared field table (`UserField.all`), so a field cannot be known here and missing from the render.
enum UserFields {
    /// Field name → the permission that must be granted to read it.
    static let rules: [String: String] = Dictionary(
        uniqueKeysWithValues: UserField.all.map { ($0.name, $0.permission) })

    /// Names some clients still request; Facebook drops them silently.
    static let silentlyIgnored: Set<String> = [
        "verified", "timezone", "updated_time", "username", "installed", "install_type",
    ]

    /// Facebook's age buckets, derived from a full birthday.
    static func ageRange(birthday: String?, now: Date) -> JSONValue? {
        UserFieldValue.ageRange(birthday: birthday, now: now)
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
