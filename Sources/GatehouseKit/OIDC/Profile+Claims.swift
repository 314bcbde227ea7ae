import Foundation

extension Profile {
    /// A Limited Login profile from verified id_token claims (`isLimited == true`), as Facebook builds it.
    convenience init(claims: AuthenticationTokenClaims, now: Date) {
        let birthday: Date? = claims.userBirthday.flatMap {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "MM/dd/yyyy"
            return formatter.date(from: $0)
        }
        self.init(
            userID: claims.sub, firstName: claims.givenName, middleName: claims.middleName, lastName: claims.familyName,
            name: claims.name, linkURL: claims.userLink.flatMap(URL.init(string:)), refreshDate: now,
            imageURL: claims.picture.flatMap(URL.init(string:)), email: claims.email, friendIDs: claims.userFriends,
            birthday: birthday, ageRange: claims.userAgeRange.flatMap(UserAgeRange.init(from:)),
            hometown: claims.userHometown.flatMap(Location.init(from:)),
            location: claims.userLocation.flatMap(Location.init(from:)), gender: claims.userGender,
            isLimited: true, permissions: nil)
    }
}
