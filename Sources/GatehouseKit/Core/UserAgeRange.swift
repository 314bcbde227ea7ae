import Foundation

/// An age bracket, as `age_range` and the `user_age_range` claim give it (Facebook's top-level `UserAgeRange`).
public struct UserAgeRange: Codable, Equatable, Sendable {
    public let min: Int?
    public let max: Int?

    public init(min: Int?, max: Int?) {
        self.min = min
        self.max = max
    }

    /// Facebook's `init?(from:)`: nil unless at least one bound is present and neither is negative.
    public init?(from dictionary: [String: NSNumber]) {
        let min = dictionary["min"]?.intValue, max = dictionary["max"]?.intValue
        guard min != nil || max != nil, (min ?? 0) >= 0, (max ?? 0) >= 0 else { return nil }
        self.init(min: min, max: max)
    }
}

/// A place, as `location`, `hometown` and their claims give it (Facebook's top-level `Location`).
public struct Location: Codable, Equatable, Sendable {
    public let id: String
    public let name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// Facebook's `init?(from:)`: needs both `id` and `name`.
    public init?(from dictionary: [String: String]) {
        guard let id = dictionary["id"], let name = dictionary["name"] else { return nil }
        self.init(id: id, name: name)
    }
}
