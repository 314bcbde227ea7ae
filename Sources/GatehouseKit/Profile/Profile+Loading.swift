import Foundation
import GatehouseProtocol

extension Profile {
    /// Called with the loaded profile, or nil and the error.
    public typealias ProfileBlock = @Sendable (Profile?, (any Error)?) -> Void

    /// Loads the current person's profile when it is missing, more than 24 hours old, someone else's,
    /// or from a Limited Login; otherwise (or with no access token) completes with `current` at once.
    ///
    /// Asks `me` for `id,first_name,middle_name,last_name,name` and the fields the token's permissions
    /// allow (`link`, `email`, `friends`, `birthday`, `age_range`, `hometown`, `location`, `gender`).
    /// The result becomes `current`; a failure sets `current` to nil.
    public static func loadCurrentProfile(completion: ProfileBlock?) {
        let environment = GatehouseKitEnvironment.current
        ProfileLoader(environment: environment).load(token: environment.currentAccessToken, completion: completion)
    }

    /// The async form of ``loadCurrentProfile(completion:)``.
    public static func loadCurrentProfile() async throws -> Profile? {
        try await withCheckedThrowingContinuation { continuation in
            loadCurrentProfile { profile, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: profile) }
            }
        }
    }
}

/// Facebook's profile-loading rules, as plain functions.
enum ProfileLoadPolicy {
    /// A cached profile older than this is loaded again.
    static let maximumAge: TimeInterval = 24 * 60 * 60

    static func shouldFetch(current: Profile?, token: AccessToken?, now: Date) -> Bool {
        guard let token else { return false }
        guard let current else { return true }
        return now.timeIntervalSince(current.refreshDate) > maximumAge || current.userID != token.userID
            || current.isLimited
    }

    /// The fields every profile request asks for.
    static let basicFields: [UserField] = [.id, .firstName, .middleName, .lastName, .name]

    /// The permissions whose fields the request adds when granted, in the order Facebook's SDK adds them
    /// (`FBSDKProfile`); what each reveals is the shared field table's (`user_hometown`: `hometown`).
    static let optionalPermissions: [Permission] = [
        .userLink, .email, .userFriends, .userBirthday, .userAgeRange, .userHometown, .userLocation, .userGender,
    ]

    /// The `fields` parameter for `token`, in Facebook's order.
    static func fields(for token: AccessToken) -> String {
        let optional = optionalPermissions.filter { token.hasGranted($0) }.flatMap(\.userFields)
        return (basicFields + optional).map(\.name).joined(separator: ",")
    }
}

/// Loads profiles over the Graph API for one environment.
struct ProfileLoader: Sendable {
    let environment: GatehouseKitEnvironment

    func load(token: AccessToken?, completion: Profile.ProfileBlock?) {
        let current = environment.currentProfile
        guard let token, ProfileLoadPolicy.shouldFetch(current: current, token: token, now: environment.clock.now())
        else {
            completion?(current, nil)
            return
        }
        Task {
            do {
                let profile = try await fetch(token: token)
                // A login that replaced the token meanwhile owns `current` now.
                if environment.currentAccessToken?.tokenString == token.tokenString {
                    Profile.setCurrent(profile, in: environment)
                }
                completion?(profile, nil)
            } catch {
                if environment.currentAccessToken?.tokenString == token.tokenString {
                    Profile.setCurrent(nil, in: environment)
                }
                completion?(nil, error)
            }
        }
    }

    func fetch(token: AccessToken) async throws -> Profile {
        let response = try await GraphTransport(environment: environment).send(
            method: "GET", path: "me", parameters: ["fields": ProfileLoadPolicy.fields(for: token)],
            tokenString: token.tokenString)
        if let json = response.json, let error = GraphAPIError(body: json, httpStatusCode: response.statusCode) {
            throw error
        }
        guard (200..<300).contains(response.statusCode), let json = response.json else {
            throw CoreError(.unknown, message: "unexpected profile response (HTTP \(response.statusCode))")
        }
        guard let profile = ProfileResponse.profile(from: json, refreshDate: environment.clock.now()) else {
            throw CoreError(.unknown, message: "profile response has no id")
        }
        return profile
    }
}

/// Reads a `me` reply into a `Profile`, as Facebook's parser does (a Graph profile has no `imageURL`).
enum ProfileResponse {
    static func profile(from json: JSONValue, refreshDate: Date) -> Profile? {
        func field(_ field: UserField) -> JSONValue? { json[field.name] }
        guard let id = field(.id)?.stringValue ?? field(.id)?.intValue.map(String.init), !id.isEmpty else { return nil }
        let friends = field(.friends)?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        return Profile(
            userID: id, firstName: field(.firstName)?.stringValue, middleName: field(.middleName)?.stringValue,
            lastName: field(.lastName)?.stringValue, name: field(.name)?.stringValue,
            linkURL: field(.link)?.stringValue.flatMap { URL(string: $0) }, refreshDate: refreshDate, imageURL: nil,
            email: field(.email)?.stringValue, friendIDs: friends?.isEmpty == false ? friends : nil,
            birthday: field(.birthday)?.stringValue.flatMap(birthday(from:)), ageRange: ageRange(field(.ageRange)),
            hometown: location(field(.hometown)), location: location(field(.location)),
            gender: field(.gender)?.stringValue)
    }

    /// `MM/dd/yyyy` at midnight UTC; the partial forms (`MM/dd`, `yyyy`) give nil, as in Facebook's SDK.
    static func birthday(from text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MM/dd/yyyy"
        return formatter.date(from: text)
    }

    private static func ageRange(_ value: JSONValue?) -> Profile.UserAgeRange? {
        guard let value, value.objectValue != nil else { return nil }
        let min = value["min"]?.intValue.map(Int.init), max = value["max"]?.intValue.map(Int.init)
        return min == nil && max == nil ? nil : Profile.UserAgeRange(min: min, max: max)
    }

    private static func location(_ value: JSONValue?) -> Profile.Location? {
        guard let id = value?["id"]?.stringValue, let name = value?["name"]?.stringValue else { return nil }
        return Profile.Location(id: id, name: name)
    }
}
