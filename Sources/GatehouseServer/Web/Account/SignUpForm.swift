import Foundation

/// The "Create new account" form, validated as Facebook validates it (pure: no storage, no clock of its own).
struct SignUpForm: Sendable, Equatable {
    var firstName: String
    var lastName: String
    /// Normalised (``EmailAddress``).
    var email: String
    var password: String
    /// `MM/DD/YYYY`, as ``GatehouseCore/UserRecord/birthday`` stores it.
    var birthday: String

    /// What is wrong with each field, in Facebook's words; the form shows the first one of each.
    struct Problems: Error, Equatable {
        var byField: [String: String]
    }

    static let nameMessage = "What's your name?"
    static let nameCharactersMessage = "This name has certain characters that aren't allowed."
    static let emailMessage = "Please enter a valid mobile number or email address."
    static let passwordMessage =
        "Enter a combination of at least six numbers, letters and punctuation marks (like ! and &)."
    static let birthdayMessage = "It looks like you entered the wrong info. Please be sure to use your real birthday."
    static let tooYoungMessage =
        "Sorry, we are not able to process your registration. You must be at least 13 years old to sign up."

    /// Reads and checks the form's fields (`firstname`, `lastname`, `email`, `password`, `birthday_day`,
    /// `birthday_month`, `birthday_year`) on `today` (UTC).
    static func parse(_ form: [String: String], today: Date) -> Result<SignUpForm, Problems> {
        var problems: [String: String] = [:]
        let first = clean(form["firstname"]), last = clean(form["lastname"])
        for (field, value) in [("firstname", first), ("lastname", last)] {
            if value.isEmpty {
                problems[field] = nameMessage
            } else if !isName(value) {
                problems[field] = nameCharactersMessage
            }
        }
        let email = EmailAddress.normalised(form["email"] ?? "")
        if email == nil { problems["email"] = emailMessage }
        let password = form["password"] ?? ""
        if password.count < 6 || password.utf8.count > 1024 || password.trimmingCharacters(in: .whitespaces).isEmpty {
            problems["password"] = passwordMessage
        } else if let email, password.lowercased() == email || password.lowercased() == "\(first) \(last)".lowercased()
        {
            problems["password"] = passwordMessage
        }
        var birthday = ""
        if let day = Int(form["birthday_day"] ?? ""), let month = Int(form["birthday_month"] ?? ""),
            let year = Int(form["birthday_year"] ?? ""),
            let date = date(year: year, month: month, day: day)
        {
            let age = years(from: date, to: today)
            if age < 0 || age > 120 {
                problems["birthday"] = birthdayMessage
            } else if age < 13 {
                problems["birthday"] = tooYoungMessage
            }
            birthday = String(format: "%02d/%02d/%04d", month, day, year)
        } else {
            problems["birthday"] = birthdayMessage
        }
        guard problems.isEmpty, let email else { return .failure(Problems(byField: problems)) }
        return .success(
            SignUpForm(firstName: first, lastName: last, email: email, password: password, birthday: birthday))
    }

    private static func clean(_ value: String?) -> String {
        (value ?? "").trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }

    /// Letters (any script), spaces, hyphens, apostrophes and full stops; at most 50 characters; no run of more
    /// than three of the same character.
    private static func isName(_ value: String) -> Bool {
        guard value.count <= 50, value.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) else {
            return false
        }
        guard
            value.unicodeScalars.allSatisfy({
                $0.properties.isAlphabetic || $0.properties.generalCategory == .nonspacingMark
                    || " -'.’".unicodeScalars.contains($0)
            })
        else { return false }
        var run = 0
        var last: Character?
        for character in value.lowercased() {
            run = character == last ? run + 1 : 1
            last = character
            if run > 3 { return false }
        }
        return true
    }

    private static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private static func date(year: Int, month: Int, day: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), (1900...9999).contains(year) else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
    }

    private static func years(from: Date, to: Date) -> Int {
        calendar.dateComponents([.year], from: from, to: to).year ?? 0
    }
}
