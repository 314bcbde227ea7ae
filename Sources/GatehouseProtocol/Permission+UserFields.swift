extension Permission {
    /// The User fields a token granted `name` may read, in `UserField.all` order; empty for permissions that
    /// reveal no profile field (`openid`, `user_photos`, …).
    ///
    /// The answer comes from the field table's permission column, so the server's Graph rules, the id_token
    /// and the SDK's profile request cannot disagree about what `user_hometown` reveals.
    package static func fields(unlockedBy name: String) -> [UserField] {
        UserField.all.filter { $0.permission == name }
    }

    /// The permission behind each field of the table that needs more than the basic profile, in table order.
    package static var profilePermissions: [String] {
        var seen = Set<String>()
        return UserField.all.map(\.permission).filter { $0 != publicProfile && seen.insert($0).inserted }
    }
}
