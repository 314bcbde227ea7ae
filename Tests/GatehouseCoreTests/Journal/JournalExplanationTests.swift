import Foundation
import GatehouseProtocol
import GatehouseCore
import Testing

/// Every Graph and OAuth error the server makes carries a plain-language explanation of its own, set by its factory
/// (the initializer requires one, so an error cannot be made without it); these are the contextual reasons too.
@Suite struct JournalExplanationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// One instance of every factory in `GraphError+Factories.swift` and `GraphError+Server.swift`, by name.
    static let factories: KeyValuePairs<String, GraphError> = [
        "invalidTokenFormat": .invalidTokenFormat,
        "tokenExpired": .tokenExpired(expiredAt: now.addingTimeInterval(-60), now: now),
        "appNotAuthorized": .appNotAuthorized(appID: "1"),
        "passwordChanged": .passwordChanged,
        "sessionLoggedOut": .sessionLoggedOut,
        "checkpointed": .checkpointed,
        "unconfirmedUser": .unconfirmedUser,
        "accountDisabled": .accountDisabled,
        "tokenRequired": .tokenRequired,
        "activeTokenRequired": .activeTokenRequired,
        "unknownPath": .unknownPath("/nowhere"),
        "missingPermission": .missingPermission("user_friends"),
        "invalidParameter": .invalidParameter("Missing authorization code"),
        "nonexistingField": .nonexistingField("foo", nodeType: "User"),
        "unsupportedRequest": .unsupportedRequest(method: "GET", objectID: "42"),
        "appsecretProofRequired": .appsecretProofRequired,
        "appsecretProofInvalid": .appsecretProofInvalid,
        "codeExpired": .codeExpired,
        "redirectURIMismatch": .redirectURIMismatch,
        "codeUsed": .codeUsed,
        "invalidCodeFormat": .invalidCodeFormat,
        "invalidClientSecret": .invalidClientSecret,
        "invalidApplicationID": .invalidApplicationID,
        "missingClientID": .missingClientID,
        "invalidCodeVerifier": .invalidCodeVerifier,
        "unexpectedCodeVerifier": .unexpectedCodeVerifier,
        "codeChallengeRequired": .codeChallengeRequired,
        "unknownError": .unknownError,
        "serviceUnavailable": .serviceUnavailable,
        "temporarilyUnavailable": .temporarilyUnavailable,
        "appRateLimit": .appRateLimit,
        "userRateLimit": .userRateLimit,
        "apiRateLimit": .apiRateLimit,
        "tooManyInBatch": .tooManyInBatch,
        // GraphError+Server.swift
        "aliasesDoNotExist": .aliasesDoNotExist(["1", "2"]),
        "feedToOtherUsersDisabled": .feedToOtherUsersDisabled,
        "permissionsError": .permissionsError,
        "requestTooLarge": .requestTooLarge(limit: 1024),
        "invalidAppToken": .invalidAppToken,
        "inputTokenOfAnotherApp": .inputTokenOfAnotherApp,
        "appTokenRequired": .appTokenRequired,
        "tooManyTestAccounts": .tooManyTestAccounts,
        "notTestUsers": .notTestUsers,
        "cannotDeleteTestAccount": .cannotDeleteTestAccount,
        "adminSessionRequired": .adminSessionRequired,
        "adminTokenUnknown": .adminTokenUnknown,
        "adminForbidden": .adminForbidden("this admin token is read-only"),
        "fqlParser": .fqlParser("Parser error: unexpected 'x' at position 3."),
        "fqlNotAMember": .fqlNotAMember("foo", table: "user"),
        "fqlUnknownTable": .fqlUnknownTable("nope"),
        "fqlNotIndexable": .fqlNotIndexable,
        "devicePending": .devicePending,
        "deviceTooFast": .deviceTooFast(interval: 5),
        "deviceCodeExpired": .deviceCodeExpired,
        "deviceDeclined": .deviceDeclined,
    ]

    @Test(arguments: factories.map(\.key))
    func everyFactoryExplainsItsErrorInItsOwnWords(name: String) throws {
        let error = try #require(Self.factories.first { $0.key == name }?.value)
        let text = try #require(error.explanation, "\(name) has no explanation")
        #expect(!text.isEmpty)
        #expect(text != error.message && !error.message.contains(text), "\(name) repeats its wire message")
        #expect(JournalExplanation.of(error) == text)
    }

    /// The session errors (190 with a subcode) give their subcode's reason, written once in `SessionSubcode`.
    @Test func sessionErrorsGiveTheirSubcodesReason() throws {
        let session = Self.factories.map(\.value).filter { $0.code == SessionSubcode.code && $0.errorSubcode != nil }
        #expect(session.count == SessionSubcode.allCases.count)
        for error in session {
            let subcode = try #require(error.errorSubcode.flatMap(SessionSubcode.init(rawValue:)))
            #expect(error.explanation == subcode.explanation)
        }
    }

    /// The errors a client can only tell apart by their message are told apart in the journal too.
    @Test func errorsThatDifferOnlyByMessageGetDifferentExplanations() {
        let byCode = Dictionary(grouping: Self.factories.map(\.value), by: { "\($0.code)/\($0.errorSubcode ?? 0)" })
        #expect(byCode.count > 25)
        for (code, errors) in byCode where errors.count > 1 {
            let reasons = Set(errors.map { $0.explanation ?? "" })
            #expect(reasons.count == errors.count, "errors \(code) share an explanation: \(reasons.sorted())")
        }
    }

    /// An error that came without a reason (decoded from a response) is named by its code, and a handler's own
    /// reason is not replaced by the error's.
    @Test func theJournalRecordsTheFactorysExplanation() throws {
        let note = JournalNote()
        note.answered(with: .codeUsed)
        let (entry, _) = note.entry(
            time: Self.now, kind: .token, method: "POST", route: "/oauth/access_token", status: 400,
            durationMilliseconds: 1)
        #expect(entry.explanation == GraphError.codeUsed.explanation)
        #expect(
            entry.errorCode == 100 && entry.errorSubcode == 36009 && entry.errorMessage == GraphError.codeUsed.message)

        let explained = JournalNote()
        explained.explain("code already used at 10:02:11 by this app")
        explained.answered(with: .codeUsed)
        #expect(explained.explanation == "code already used at 10:02:11 by this app")

        let decoded = GraphError(wireMessage: "m", code: 368, errorSubcode: 1)
        #expect(JournalExplanation.of(decoded) == "refused with Graph error 368/1")
    }

    /// The remote token cache's own error codes, every one (`allCases`, so a new code needs its reason).
    @Test func tokenCacheErrorsAreExplained() {
        let reasons = TokenCacheWire.ErrorCode.allCases.map(\.explanation)
        #expect(reasons.allSatisfy { !$0.isEmpty })
        #expect(Set(reasons).count == reasons.count)
    }

    @Test func theIssuesExamples() {
        #expect(
            JournalExplanation.redirectURINotRegistered(
                "http://localhost:3000/cb", appName: "Shop", registered: ["http://localhost:3000/callback"])
                == "redirect_uri `http://localhost:3000/cb` is not registered for app Shop; registered: "
                + "`http://localhost:3000/callback` (differs after `http://localhost:3000/c`: `b` instead of `allback`)"
        )
        let midnight: TimeInterval = 1_800_000_000 - 28_800  // 2027-01-15T00:00:00Z
        let usedAt = Date(timeIntervalSince1970: midnight + 36_131)  // 10:02:11
        #expect(
            JournalExplanation.codeAlreadyUsed(at: usedAt)
                == "code already used at 10:02:11 by this app; the tokens minted from it have been revoked")
        #expect(
            GraphError.appsecretProofInvalid.explanation
                == "appsecret_proof does not match: it was computed with a different secret or token")
        let declinedAt = Date(timeIntervalSince1970: midnight + 35_880)  // 09:58
        #expect(
            JournalExplanation.permissionDeclined("email", by: "Alice", at: declinedAt)
                == "email was declined by Alice at 09:58")
        #expect(
            JournalExplanation.injected(code: 190, subcode: 460, rule: 3, remainingAfter: 2)
                == "injected error 190/460 (rule #3, 2 left)")
        #expect(
            JournalExplanation.injected(code: 4, subcode: nil, rule: 1, remainingAfter: nil)
                == "injected error 4 (rule #1, until cleared)")
        #expect(
            JournalExplanation.tokenExpired(
                at: Self.now.addingTimeInterval(-240), now: Self.now, clockOffset: 61 * 86_400)
                == "token expired 4 minutes ago (clock moved +61d)")
        #expect(
            JournalExplanation.tokenExpired(at: Self.now.addingTimeInterval(-3600), now: Self.now, clockOffset: 0)
                == "token expired 1 hour ago")
    }

    @Test func differenceNamesWhereTwoURIsPart() {
        #expect(
            JournalExplanation.difference(presented: "https://a/cb/", expected: "https://a/cb")
                == "differs after `https://a/cb`: `/` is extra")
        #expect(
            JournalExplanation.difference(presented: "https://a/c", expected: "https://a/cb")
                == "differs after `https://a/c`: `b` is missing")
        #expect(
            JournalExplanation.difference(presented: "x", expected: "y") == "differs from the start: `x` instead of `y`"
        )
        #expect(
            JournalExplanation.redirectURINotRegistered("https://x", appName: "A", registered: [])
                == "redirect_uri `https://x` is not registered for app A; the app has no redirect URIs registered")
    }

    @Test func codeExchangeRefusalsAreExplainedFromTheSameFacts() {
        let now = Self.now
        let code = AuthCodeRecord(
            id: "c", codeHash: "h", appID: "111", userID: "u", redirectURI: "https://a/callback",
            createdAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(540))
        func explain(
            _ code: AuthCodeRecord?, redirect: String = "https://a/callback", client: String = "111", found: Bool = true
        ) -> String? {
            let presented = CodeExchange.Presented(
                clientID: client, redirectURI: redirect, codeVerifier: nil, secretValid: true)
            return JournalExplanation.codeExchange(
                CodeExchange.decide(code: code, presented: presented, now: now), code: code, presented: presented,
                found: found, now: now)
        }
        #expect(explain(code) == nil)
        #expect(
            explain(code, redirect: "https://a/cb")
                == "redirect_uri `https://a/cb` differs from the dialog's `https://a/callback` (differs after "
                + "`https://a/c`: `b` instead of `allback`)"
        )
        var used = code
        used.usedAt = now.addingTimeInterval(-30)
        #expect(explain(used)?.hasPrefix("code already used at ") == true)
        var old = code
        old.expiresAt = now.addingTimeInterval(-180)
        #expect(explain(old)?.hasSuffix("3 minutes ago (codes live 10 minutes)") == true)
        #expect(explain(nil, found: false)?.contains("no code with this value") == true)
        #expect(explain(code, client: "222") == "the code was issued to app 111, not to client_id 222")
    }
}
