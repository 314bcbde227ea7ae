import Foundation
import GatehouseProtocol

/// The claims of a Limited Login id_token (Facebook's `AuthenticationTokenClaims`).
///
/// Field types are Facebook's: the age range as `[String: NSNumber]`, places as `[String: String]`.
public struct AuthenticationTokenClaims: @unchecked Sendable, Equatable {

    public let jti: String
    public let iss: String
    public let aud: String
    public let nonce: String
    public let sub: String
    public let exp: TimeInterval
    public let iat: TimeInterval
    public let name: String?
    public let givenName: String?
    public let middleName: String?
    public let familyName: String?
    public let email: String?
    public let picture: String?
    public let userFriends: [String]?
    public let userBirthday: String?
    /// `{"min": …, "max": …}`.
    public let userAgeRange: [String: NSNumber]?
    /// `{"id": …, "name": …}`.
    public let userHometown: [String: String]?
    public let userLocation: [String: String]?
    public let userGender: String?
    public let userLink: String?

    /// Reads the payload; nil when a required claim is missing or of the wrong type.
    ///
    /// The claim names are the server's: `IDTokenClaim` for the registered ones, the field table's
    /// `idTokenClaim` for the profile (`user_hometown` is `UserField.hometown`'s).
    init?(_ json: JSONValue) {
        func claim(_ name: IDTokenClaim) -> JSONValue? { json[name.rawValue] }
        func claim(_ field: UserField) -> JSONValue? { field.idTokenClaim.flatMap { json[$0] } }
        guard let jti = claim(.tokenID)?.stringValue, let iss = claim(.issuer)?.stringValue,
            let aud = claim(.audience)?.stringValue, let sub = claim(.subject)?.stringValue,
            let exp = claim(.expiresAt)?.doubleValue, let iat = claim(.issuedAt)?.doubleValue
        else { return nil }
        self.jti = jti
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.exp = exp
        self.iat = iat
        nonce = claim(.nonce)?.stringValue ?? ""
        name = claim(UserField.name)?.stringValue
        givenName = claim(.firstName)?.stringValue
        middleName = claim(.middleName)?.stringValue
        familyName = claim(.lastName)?.stringValue
        email = claim(UserField.email)?.stringValue
        picture = claim(.picture)?.stringValue
        userFriends = claim(.friends)?.arrayValue?.compactMap(\.stringValue)
        userBirthday = claim(.birthday)?.stringValue
        userAgeRange = claim(.ageRange)?.objectValue.map { range in
            var numbers: [String: NSNumber] = [:]
            for key in ["min", "max"] { if let value = range[key]?.intValue { numbers[key] = NSNumber(value: value) } }
            return numbers
        }
        userHometown = Self.place(claim(.hometown))
        userLocation = Self.place(claim(.location))
        userGender = claim(.gender)?.stringValue
        userLink = claim(.link)?.stringValue
    }

    private static func place(_ value: JSONValue?) -> [String: String]? {
        guard let id = value?["id"]?.stringValue, let name = value?["name"]?.stringValue else { return nil }
        return ["id": id, "name": name]
    }

    /// Why a set of claims is refused, for tests and logs; callers see `LoginError(.invalidIDToken)`.
    public enum Problem: Error, Equatable, Sendable {
        case emptyJTI, wrongIssuer, wrongAudience, expired, staleIssuedAt, wrongNonce, emptySubject
    }

    /// Facebook's checks: `jti` and `sub` non-empty, `iss` the server, `aud` the app, `exp` in the future,
    /// `iat` no older than 10 minutes, `nonce` the one the login sent.
    public func validate(issuer: String, appID: String, nonce expected: String, now: Date) -> Problem? {
        if jti.isEmpty { return .emptyJTI }
        if !Self.sameIssuer(iss, issuer) { return .wrongIssuer }
        if aud != appID { return .wrongAudience }
        if exp <= now.timeIntervalSince1970 { return .expired }
        if iat < now.timeIntervalSince1970 - 600 { return .staleIssuedAt }
        if expected.isEmpty || nonce != expected { return .wrongNonce }
        if sub.isEmpty { return .emptySubject }
        return nil
    }

    /// Issuers compare without a trailing slash (`https://host` and `https://host/` are one issuer).
    static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> String { s.hasSuffix("/") ? String(s.dropLast()) : s }
        return trimmed(a) == trimmed(b)
    }
}
