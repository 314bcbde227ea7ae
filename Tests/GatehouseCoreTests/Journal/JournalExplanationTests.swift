import Foundation
import GatehouseProtocol
import GatehouseCore
import Testing

/// Every Graph and OAuth error the server can return has a plain-language explanation of its own.
@Suite struct JournalExplanationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// One instance of every factory in `GraphError+Factories.swift` and `GraphError+Server.swift`, by name.
    static let factories: [String: GraphError] = [
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
        // GraphError+Server.swift
        "aliasesDoNotExist": .aliasesDoNotExist(["1", "2"]),
        "feedToOtherUsersDisabled": .feedToOtherUsersDisabled,
        "permissionsError": .permissionsError,
        "requestTooLarge": .requestTooLarge(limit: 1024),
        "tooManyInBatch": .tooManyInBatch,
        "invalidAppToken": .invalidAppToken,
        "fqlParser": .fqlParser("Parser error: unexpected 'x' at position 3."),
        "fqlNotAMember": .fqlNotAMember("foo", table: "user"),
        "fqlUnknownTable": .fqlUnknownTable("nope"),
        "fqlNotIndexable": .fqlNotIndexable,
        "devicePending": .devicePending,
        "deviceTooFast": .deviceTooFast(interval: 5),
        "deviceCodeExpired": .deviceCodeExpired,
        "deviceDeclined": .deviceDeclined,
    ]

    /// The errors built elsewhere in the server (one each), which the catalogue must know too.
    static let others: [GraphError] = [
        GraphError(
            message: "(#100) The App_id in the input_token did not match the Viewing App", type: "OAuthException",
            code: 100),
        GraphError(
            message: "(#1) Too many requests in batch message. Maximum batch size is 50", type: "OAuthException",
            code: 1),
        GraphError(
            message: "(#15) This method must be called with an app access_token.", type: "OAuthException", code: 15),
        GraphError(message: "(#2903) Cannot delete this test account", type: "OAuthException", code: 2903),
        GraphError(message: "(#2902) Both users must be test users of this app", type: "OAuthException", code: 2902),
        GraphError(message: "An admin session is required: log in at /console/login.", code: 190, httpStatus: 401),
    ]

    /// The factory names declared in the two files, read from the sources: a factory added there without an
    /// entry above (and so without a checked explanation) fails this test.
    static func declaredFactories() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        var names = Set<String>()
        for path in [
            "Sources/GatehouseProtocol/GraphError+Factories.swift",
            "Sources/GatehouseCore/Graph/GraphError+Server.swift",
        ] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" }).map(String.init)
                guard let index = words.firstIndex(of: "static"), index + 2 < words.count,
                    ["let", "var", "func"].contains(words[index + 1]), !words.contains("private")
                else { continue }
                names.insert(words[index + 2])
            }
        }
        return names.subtracting(["pacificTimestamp"])
    }

    @Test func everyFactoryIsListed() throws {
        let declared = try Self.declaredFactories()
        #expect(declared.count > 40)
        #expect(
            declared == Set(Self.factories.keys),
            "factories without a checked explanation: \(declared.subtracting(Self.factories.keys).sorted())")
    }

    @Test(arguments: factories.keys.sorted())
    func everyFactoryHasAnExplanationOfItsOwn(name: String) throws {
        let error = try #require(Self.factories[name])
        let text = JournalExplanation.forError(error)
        #expect(!text.isEmpty)
        #expect(!text.hasPrefix("refused with Graph error"), "\(name) falls through to the generic explanation")
    }

    @Test func errorsBuiltElsewhereAreExplainedToo() {
        for error in Self.others {
            #expect(!JournalExplanation.forError(error).hasPrefix("refused with Graph error"), "\(error.message)")
        }
    }

    /// The remote token cache's own error codes, every one (`allCases`, so a new code needs its reason).
    @Test func tokenCacheErrorsAreExplained() {
        for code in TokenCacheWire.ErrorCode.allCases {
            #expect(
                !JournalExplanation.tokenCache(code.rawValue, message: "m").hasPrefix("the token cache refused"),
                "\(code)")
        }
    }

    @Test func errorsThatDifferOnlyByMessageGetDifferentExplanations() {
        let code100: [GraphError] = [
            .appsecretProofRequired, .appsecretProofInvalid, .invalidCodeFormat, .invalidCodeVerifier,
            .unexpectedCodeVerifier, .codeChallengeRequired, .invalidParameter("x"),
        ]
        #expect(Set(code100.map(JournalExplanation.forError)).count == code100.count)
        let code1: [GraphError] = [.invalidClientSecret, .unknownError, Self.others[1]]
        #expect(Set(code1.map(JournalExplanation.forError)).count == code1.count)
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
            JournalExplanation.forError(.appsecretProofInvalid)
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
