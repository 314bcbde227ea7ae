import Foundation
import GatehouseProtocol

/// What a Graph read of a person knows besides the record: the id and profile URL the app sees, and the time.
package struct UserFieldContext: Sendable {
    package var user: UserRecord
    /// The app-scoped id the caller sees.
    package var scopedID: String
    /// The app the id is scoped to.
    package var appID: String
    /// The server's public base URL, for the default profile link.
    package var baseURL: String
    package var now: Date

    package init(user: UserRecord, scopedID: String, appID: String, baseURL: String, now: Date) {
        self.user = user
        self.scopedID = scopedID
        self.appID = appID
        self.baseURL = baseURL
        self.now = now
    }
}

/// How one `UserField`'s value is kept on a `UserRecord`, stored in `users` and read back out as JSON.
///
/// Text and place fields are profile data: SQL stores them in the columns named here, and the console,
/// scenarios and the admin API read and write them through the key path. Derived fields are computed from
/// the rest of the record. Edges (picture, friends, permissions) need more than the record; the Graph
/// endpoint renders those itself.
///
/// A class, and immutable: Graph looks an entry up for every field of every `/me`, and a class is handed out
/// with one retain where this struct's keypaths, closures and strings cost one each.
package final class UserFieldValue: Sendable {
    package enum Kind: Sendable {
        /// A nullable text column; `whenEmpty` is what Graph shows when it is nil (nothing if it returns nil).
        case text(
            any WritableKeyPath<UserRecord, String?> & Sendable, column: String,
            whenEmpty: @Sendable (UserFieldContext) -> JSONValue?)
        /// A place, stored as an id column and a name column, read as `{"id","name"}`.
        case place(any WritableKeyPath<UserRecord, Place?> & Sendable, idColumn: String, nameColumn: String)
        /// Computed from the record (and the context).
        case derived(@Sendable (UserFieldContext) -> JSONValue?)
        /// Rendered by the Graph endpoint, which has the storage it needs.
        case edge(Edge)
    }

    /// Which edge: the Graph endpoint switches on this, not on the field (comparing fields compares their names,
    /// for every field of every `/me`).
    package enum Edge: Sendable {
        case picture, friends, permissions
    }

    /// A check on a value people type (console, scenario, admin API), and what to say when it fails.
    package struct Rule: Sendable {
        package var accepts: @Sendable (String) -> Bool
        /// Reads after the field's name: "birthday must be MM/DD/YYYY, MM/DD or YYYY".
        package var message: String
    }

    package let field: UserField
    package let kind: Kind
    /// The console's label (text and place fields).
    package let title: String
    package let rule: Rule?

    init(field: UserField, kind: Kind, title: String = "", rule: Rule? = nil) {
        self.field = field
        self.kind = kind
        self.title = title
        self.rule = rule
    }

    /// Why `text` is not a good value for this field, as "name message" (nil when it is).
    package func problem(_ text: String) -> String? {
        guard let rule, !rule.accepts(text) else { return nil }
        return "\(field.name) \(rule.message)"
    }

    /// The Graph value of this field for a person, or nil when there is none (the field is then left out).
    /// Edges return nil: the Graph endpoint renders them.
    package func read(_ context: UserFieldContext) -> JSONValue? {
        switch kind {
        case .text(let path, _, let whenEmpty): context.user[keyPath: path].map(JSONValue.string) ?? whenEmpty(context)
        case .place(let path, _, _): context.user[keyPath: path].map(Self.json)
        case .derived(let compute): compute(context)
        case .edge: nil
        }
    }

    /// The storage columns, in order; empty for derived fields and edges.
    package var columns: [String] {
        switch kind {
        case .text(_, let column, _): [column]
        case .place(_, let id, let name): [id, name]
        case .derived, .edge: []
        }
    }

    /// The column values for `columns`.
    package func stored(_ user: UserRecord) -> [String?] {
        switch kind {
        case .text(let path, _, _): [user[keyPath: path]]
        case .place(let path, _, _): [user[keyPath: path]?.id, user[keyPath: path]?.name]
        case .derived, .edge: []
        }
    }

    /// Sets the field from its stored column values (`column` reads one by name, each once, in `columns`' order).
    package func load(into user: inout UserRecord, _ column: (String) throws -> String?) rethrows {
        switch kind {
        case .text(let path, let c, _): user[keyPath: path] = try column(c)
        case .place(let path, let id, let name):
            let placeID = try column(id), placeName = try column(name)
            user[keyPath: path] = placeID.map { Place(id: $0, name: placeName ?? "") }
        case .derived, .edge: break
        }
    }

    /// Sets a text or place field from what a person typed (nil clears it); `place` turns a name into a `Place`.
    package func assign(_ text: String?, to user: inout UserRecord, place: (String) -> Place) {
        switch kind {
        case .text(let path, _, _): user[keyPath: path] = text
        case .place(let path, _, _): user[keyPath: path] = text.map(place)
        case .derived, .edge: break
        }
    }

    /// What a person edits for this field: the text, or a place's name ("" when unset).
    package func typed(_ user: UserRecord) -> String {
        switch kind {
        case .text(let path, _, _): user[keyPath: path] ?? ""
        case .place(let path, _, _): user[keyPath: path]?.name ?? ""
        case .derived, .edge: ""
        }
    }

    static func json(_ place: Place) -> JSONValue { ["id": .string(place.id), "name": .string(place.name)] }
}

extension UserFieldValue {
    private static func text(
        _ field: UserField, _ path: any WritableKeyPath<UserRecord, String?> & Sendable, column: String, title: String,
        rule: Rule? = nil, whenEmpty: @escaping @Sendable (UserFieldContext) -> JSONValue? = { _ in nil }
    ) -> UserFieldValue {
        UserFieldValue(field: field, kind: .text(path, column: column, whenEmpty: whenEmpty), title: title, rule: rule)
    }

    private static func place(
        _ field: UserField, _ path: any WritableKeyPath<UserRecord, Place?> & Sendable, column: String, title: String
    ) -> UserFieldValue {
        UserFieldValue(
            field: field, kind: .place(path, idColumn: column + "_id", nameColumn: column + "_name"), title: title)
    }

    private static func derived(_ field: UserField, _ compute: @escaping @Sendable (UserFieldContext) -> JSONValue?)
        -> UserFieldValue
    {
        UserFieldValue(field: field, kind: .derived(compute))
    }

    private static let birthdayRule = Rule(accepts: isValidBirthday, message: "must be MM/DD/YYYY, MM/DD or YYYY")
    private static let quotesRule = length(1000)
    /// The lengths the admin API's document (admin-v1.yaml) states for the field.
    private static func length(_ limit: Int) -> Rule {
        Rule(accepts: { $0.unicodeScalars.count <= limit }, message: "may be at most \(limit) characters")
    }
    /// The locale Facebook answers for a person who never set one.
    package static let defaultLocale = "en_US"

    /// Facebook's locales are a language and a country, `en_US`.
    private static let localeRule = Rule(
        accepts: { text in
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            return parts.count == 2 && parts[0].count == 2 && parts[1].count == 2
                && parts[0].allSatisfy { ("a"..."z").contains($0) } && parts[1].allSatisfy { ("A"..."Z").contains($0) }
        },
        message: "must be a language and a country, as en_US")

    /// One entry per `UserField.all`, in the same order (a test holds them together).
    package static let all: [UserFieldValue] = [
        derived(.id) { .string($0.scopedID) },
        derived(.name) { .string($0.user.fullName) },
        derived(.firstName) { .string($0.user.firstName) },
        text(.middleName, \.middleName, column: "middle_name", title: "Middle name", rule: length(100)),
        derived(.lastName) { .string($0.user.lastName) },
        derived(.nameFormat) { .string($0.user.middleName == nil ? "{first} {last}" : "{first} {middle} {last}") },
        derived(.shortName) { .string($0.user.firstName) },
        UserFieldValue(field: .picture, kind: .edge(.picture)),
        derived(.email) { .string($0.user.email) },
        text(.birthday, \.birthday, column: "birthday", title: "Birthday (MM/DD/YYYY)", rule: birthdayRule),
        text(.gender, \.gender, column: "gender", title: "Gender", rule: length(50)),
        text(.link, \.link, column: "link", title: "Profile link") {
            .string("\($0.baseURL)/profile/\($0.appID)/\($0.scopedID)")
        },
        place(.location, \.location, column: "location", title: "Location"),
        place(.hometown, \.hometown, column: "hometown", title: "Hometown"),
        derived(.ageRange) { ageRange(birthday: $0.user.birthday, now: $0.now) },
        UserFieldValue(field: .friends, kind: .edge(.friends)),
        UserFieldValue(field: .permissions, kind: .edge(.permissions)),
        text(.quotes, \.quotes, column: "quotes", title: "Favourite quotes", rule: quotesRule) { _ in "" },
        text(.locale, \.profileText["locale"], column: "locale", title: "Locale (en_US)", rule: localeRule) { _ in
            .string(defaultLocale)
        },
    ]

    /// The entry for a Graph field name.
    package static func named(_ name: String) -> UserFieldValue? { byName[name] }
    private static let byName: [String: UserFieldValue] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.field.name, $0) })

    /// The profile fields people edit (text and places), in table order.
    package static var editable: [UserFieldValue] { all.filter { !$0.columns.isEmpty } }

    /// Every storage column of the table's fields, in table order.
    package static var storedColumns: [String] { all.flatMap(\.columns) }

    /// Accepts `MM/DD/YYYY`, `MM/DD` and `YYYY`, the forms Facebook returns.
    package static func isValidBirthday(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        func num(_ s: String, _ len: Int, _ range: ClosedRange<Int>) -> Bool {
            s.count == len && s.utf8.allSatisfy { (48...57).contains($0) } && Int(s).map(range.contains) == true
        }
        switch parts.count {
        case 1: return num(parts[0], 4, 1900...2100)
        case 2: return num(parts[0], 2, 1...12) && num(parts[1], 2, 1...31)
        case 3: return num(parts[0], 2, 1...12) && num(parts[1], 2, 1...31) && num(parts[2], 4, 1900...2100)
        default: return false
        }
    }

    /// Facebook's age buckets, derived from a full birthday.
    package static func ageRange(birthday: String?, now: Date) -> JSONValue? {
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
