import Foundation
@testable import GatehouseServer
import Testing

/// The sign-up form's checks and email normalisation (pure).
@Suite struct SignUpFormTests {
    static let today = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15

    static func form(_ changes: [String: String] = [:]) -> [String: String] {
        var form = [
            "firstname": "Zoë", "lastname": "O'Neil-Smith", "email": " Zoe@Example.COM ", "password": "a good pass",
            "birthday_day": "29", "birthday_month": "2", "birthday_year": "2000",
        ]
        form.merge(changes) { _, new in new }
        return form
    }

    @Test func aValidFormIsNormalised() throws {
        let parsed = try SignUpForm.parse(Self.form(), today: Self.today).get()
        #expect(parsed.email == "zoe@example.com")
        #expect(parsed.firstName == "Zoë")
        #expect(parsed.birthday == "02/29/2000")
    }

    @Test(arguments: [
        (["firstname": ""], "firstname", SignUpForm.nameMessage),
        (["lastname": "R2D2"], "lastname", SignUpForm.nameCharactersMessage),
        (["firstname": "Aaaaa"], "firstname", SignUpForm.nameCharactersMessage),
        (["email": "zoe@localhost"], "email", SignUpForm.emailMessage),
        (["email": "a@b@c.com"], "email", SignUpForm.emailMessage),
        (["password": "12345"], "password", SignUpForm.passwordMessage),
        (["password": "ZOE@example.com"], "password", SignUpForm.passwordMessage),
        (["birthday_day": "30"], "birthday", SignUpForm.birthdayMessage),
        (["birthday_year": "2016"], "birthday", SignUpForm.tooYoungMessage),
        (["birthday_year": "1850"], "birthday", SignUpForm.birthdayMessage),
    ])
    func eachFieldIsCheckedAsFacebookChecksIt(change: [String: String], field: String, message: String) {
        guard case .failure(let problems) = SignUpForm.parse(Self.form(change), today: Self.today) else {
            Issue.record("accepted \(change)")
            return
        }
        #expect(problems.byField == [field: message])
    }

    @Test func addressesAreTrimmedNormalisedAndLowerCased() {
        #expect(EmailAddress.normalised("  Ann.Lee+tag@Mail.Example.ORG\n") == "ann.lee+tag@mail.example.org")
        #expect(EmailAddress.normalised("Ame\u{301}lie@example.com") == "am\u{E9}lie@example.com")
        for bad in [
            "", "plain", "@example.com", "a@", "a@example", "a b@example.com", "a..b@example.com", "a@-x.com",
            "\"a\"@example.com",
        ] {
            #expect(EmailAddress.normalised(bad) == nil, "\(bad)")
        }
    }
}
