import Foundation
import GatehouseProtocol

/// Plain-language reasons for refusals, for the journal (never the wire, where Facebook's exact error stays).
///
/// ``forError(_:)`` is the catalogue: every Graph and OAuth error Gatehouse can return has an entry, and
/// `JournalExplanationTests` checks that each factory in `GraphError+Factories.swift` and
/// `GraphError+Server.swift` gets one of its own rather than the fallback. The other functions build the
/// contextual reasons the handlers give when they know more (which URI, when the code was used, by whom).
package enum JournalExplanation {
    // MARK: The catalogue

    /// The explanation of `error` when the handler that refused gave none.
    package static func forError(_ error: GraphError) -> String {
        let message = error.message
        switch (error.code, error.errorSubcode) {
        case (SessionSubcode.code, let subcode?) where SessionSubcode(rawValue: subcode) != nil:
            return SessionSubcode(rawValue: subcode)!.explanation
        case (190, _):
            if message == GraphError.invalidAppToken.message {
                return
                    "the app token APPID|… matches neither the app's secret, its client token, nor an app token minted for it"
            }
            if message.hasPrefix("An admin session is required") {
                return "the admin API needs a signed-in admin (production mode)"
            }
            return
                "the access token is not one this server issued: unknown, malformed, too long, or for a deleted app or person"
        case (104, _): return "no access token was sent (neither an access_token parameter nor an Authorization header)"
        case (2500, _):
            if message == GraphError.activeTokenRequired.message {
                return "/me needs a user access token; this call had an app or client token, or none"
            }
            return
                "\(message.replacingOccurrences(of: "Unknown path components: ", with: "the path ")) is not a Graph route this server knows"
        case (200, _):
            if let range = message.range(of: "Requires extended permission: ") {
                return "the token was not granted the permission \(message[range.upperBound...])"
            }
            if message == GraphError.feedToOtherUsersDisabled.message {
                return "apps may only post to the token's own person's timeline, not to someone else's"
            }
            return
                "the caller may see this object but not change it (only its author, the person it was sent to, or the app may)"
        case (100, 33): return "the object does not exist, is hidden from this caller, or does not support this method"
        case (100, 36007): return "the authorization code is older than its 10-minute life"
        case (100, 36008):
            return "redirect_uri differs from the one the login dialog was opened with; it must be identical"
        case (100, 36009): return "the code was already exchanged; the tokens minted from it have been revoked"
        case (100, _): return explainParameter(error)
        case (1, _):
            if message == GraphError.invalidClientSecret.message {
                return "client_secret does not match the app's secret"
            }
            if message.contains("Too many requests in batch") {
                return "a batch may hold at most \(GraphBatch.maximumEntries) requests"
            }
            return "the server failed unexpectedly while answering (see the server's log); clients retry"
        case (101, _):
            if message == GraphError.missingClientID.message {
                return "the request has no client_id (nor Basic credentials)"
            }
            return "no app has this client_id, or it is not the app the token belongs to"
        case (2, _):
            if error.httpStatus == 503 {
                return "the database could not be reached (is PostgreSQL restarting?); clients retry"
            }
            return "a storage operation failed (see the server's log); clients retry"
        case (4, _): return "the app's Graph call budget for this window is spent (limits.app_calls_per_window)"
        case (17, 1349172): return "the device polled sooner than the interval allows"
        case (17, _): return "this person's Graph call budget for this app is spent (limits.user_calls_per_window)"
        case (613, _):
            return
                "too many calls from this client to this endpoint (limits.token_endpoint_calls_per_ip or the device-login limits)"
        case (803, _): return "?ids= named objects that do not exist or are hidden from the caller"
        case (601, _): return "the FQL query could not be parsed, or names a table Gatehouse does not serve"
        case (602, _): return "the FQL query names a column its table does not have"
        case (604, _): return "the FQL WHERE clause has no condition on an indexable column (such as uid = me())"
        case (31, 1349174): return "the person has not yet approved the device's code; keep polling"
        case (31, 1349173): return "the person declined the device login"
        case (31, _): return "the device login is not approved"
        case (463, 1349152): return "the device code expired or was already used"
        case (15, _): return "this call needs an app access token (APPID|SECRET or one from client_credentials)"
        case (2902, _): return "both people must be test users of this app"
        case (2903, _): return "only the app that created a test user may delete it"
        default: return "refused with Graph error \(error.code)\(error.errorSubcode.map { "/\($0)" } ?? "")"
        }
    }

    /// Code 100 without a subcode: the messages tell the cases apart.
    private static func explainParameter(_ error: GraphError) -> String {
        switch error.message {
        case GraphError.appsecretProofRequired.message:
            return "the app has “Require App Secret” on and the call carried no appsecret_proof"
        case GraphError.appsecretProofInvalid.message:
            return "appsecret_proof does not match: it was computed with a different secret or token"
        case GraphError.invalidCodeFormat.message:
            return "the code is unknown to this server, belongs to another app, or is malformed"
        case GraphError.invalidCodeVerifier.message:
            return "the PKCE code_verifier does not hash to the code_challenge the dialog was sent"
        case GraphError.unexpectedCodeVerifier.message:
            return "a code_verifier was sent for a code issued without a code_challenge (a PKCE downgrade is refused)"
        case GraphError.codeChallengeRequired.message:
            return "the app requires PKCE, and this code or nonce was issued without a code_challenge"
        case "(#100) The App_id in the input_token did not match the Viewing App":
            return "debug_token was asked about another app's token; an app may inspect only its own tokens"
        default:
            var text = error.message
            if text.hasPrefix("(#100) ") { text.removeFirst(7) }
            if error.httpStatus == 413 { return "the request body is larger than max_body_bytes" }
            return "a parameter is invalid: \(text)"
        }
    }

    /// A refusal that is no Graph error (an HTML error page, a 404), by its status.
    package static func forStatus(_ status: Int, route: String) -> String {
        switch status {
        case 400: "the request was malformed or named something that does not exist (see the page it answered with)"
        case 401, 403: "the request was not allowed (missing login, admin session, CSRF token or permission)"
        case 404: "there is no page or route at \(route)"
        case 405: "the route does not accept this method"
        case 413: "the request body is larger than max_body_bytes"
        case 421: "the Host header names another server (development mode answers only its own loopback name)"
        case 429: "too many attempts; the limit resets after its window"
        case 500...: "the server failed unexpectedly (see the server's log)"
        default: "refused with HTTP \(status)"
        }
    }

    /// The remote token cache answers in its own shape (`errorCode` 30001…50003), not as a Graph error.
    package static func tokenCache(_ code: Int, message: String) -> String {
        let reason: String
        switch code {
        case 30001: reason = "the token cache request is missing or has a malformed field"
        case 30002: reason = "the token cache request's app credentials (client id and token) do not match an app"
        case 30003: reason = "session_proof is not HMAC-SHA256(app secret, \"token_cache:\" + session key)"
        case 50001: reason = "the token cache slot could not be written"
        case 50002: reason = "there is nothing stored in this token cache slot"
        case 50003: reason = "the token cache does not accept this method"
        default: reason = "the token cache refused the request"
        }
        return "\(reason) (token cache error \(code): \(message))"
    }

    // MARK: Contextual explanations

    /// "redirect_uri `http://localhost:3000/cb` is not registered for app Shop; registered:
    /// `http://localhost:3000/callback` (differs after `http://localhost:3000/c`: `b` instead of `allback`)".
    package static func redirectURINotRegistered(_ uri: String, appName: String, registered: [String]) -> String {
        var text = "redirect_uri `\(uri)` is not registered for app \(appName); "
        if registered.isEmpty { return text + "the app has no redirect URIs registered" }
        text += "registered: " + registered.prefix(5).map { "`\($0)`" }.joined(separator: ", ")
        if registered.count > 5 { text += " and \(registered.count - 5) more" }
        if let closest = registered.max(by: { commonPrefixLength($0, uri) < commonPrefixLength($1, uri) }) {
            text += " (" + difference(presented: uri, expected: closest) + ")"
        }
        return text
    }

    /// The token endpoint's `redirect_uri` against the dialog's.
    package static func redirectURIMismatch(presented: String, dialog: String) -> String {
        if presented.isEmpty {
            return
                "redirect_uri is missing; the dialog was opened with `\(dialog)`, and the token endpoint needs it again, identical"
        }
        return
            "redirect_uri `\(presented)` differs from the dialog's `\(dialog)` (\(difference(presented: presented, expected: dialog)))"
    }

    /// Where two strings part: `differs after `http://x/c`: `b` instead of `allback``.
    package static func difference(presented: String, expected: String) -> String {
        let common = commonPrefixLength(presented, expected)
        let prefix = String(presented.prefix(common))
        let got = String(presented.dropFirst(common)), wanted = String(expected.dropFirst(common))
        let at = common == 0 ? "differs from the start" : "differs after `\(prefix)`"
        switch (got.isEmpty, wanted.isEmpty) {
        case (true, true): return "identical"
        case (true, false): return "\(at): `\(wanted)` is missing"
        case (false, true): return "\(at): `\(got)` is extra"
        case (false, false): return "\(at): `\(got)` instead of `\(wanted)`"
        }
    }

    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }

    /// "code already used at 10:02:11 by this app; the token minted from it has been revoked".
    package static func codeAlreadyUsed(at usedAt: Date?) -> String {
        let when = usedAt.map { " at \(clockTime($0))" } ?? ""
        return "code already used\(when) by this app; the tokens minted from it have been revoked"
    }

    /// "code expired at 10:12:11, 3 minutes ago (codes live 10 minutes)".
    package static func codeExpired(at expiresAt: Date, now: Date) -> String {
        "code expired at \(clockTime(expiresAt)), \(ago(now.timeIntervalSince(expiresAt))) (codes live 10 minutes)"
    }

    /// "token expired 4 minutes ago (clock moved +61d)".
    package static func tokenExpired(at expiresAt: Date, now: Date, clockOffset: TimeInterval) -> String {
        var text = "token expired \(ago(now.timeIntervalSince(expiresAt)))"
        if clockOffset > 0 { text += " (clock moved +\(duration(clockOffset)))" }
        return text
    }

    /// "email was declined by Alice at 09:58".
    package static func permissionDeclined(_ permission: String, by person: String, at: Date?) -> String {
        "\(permission) was declined by \(person)" + (at.map { " at \(clockTime($0, seconds: false))" } ?? "")
    }

    /// "user_friends was never granted by Alice to this app".
    package static func permissionNotGranted(_ permission: String, by person: String) -> String {
        "\(permission) was never granted by \(person) to this app"
    }

    /// "injected error 190/460 (rule #3, 2 of 3 left)" — or "until cleared".
    package static func injected(code: Int, subcode: Int?, rule: Int, remainingAfter: Int?) -> String {
        let error = subcode.map { "\(code)/\($0)" } ?? "\(code)"
        let left = remainingAfter.map { "\($0) left" } ?? "until cleared"
        return "injected error \(error) (rule #\(rule), \(left))"
    }

    /// The token check's failures with what the stored rows say.
    package static func passwordChanged(_ person: String, at changed: Date, issuedAt: Date) -> String {
        "\(person) changed their password at \(clockTime(changed)), after this token was issued (\(clockTime(issuedAt))); the token is invalid"
    }

    package static func revoked(at revokedAt: Date) -> String {
        "the token was revoked at \(clockTime(revokedAt)) (logout, the console, removing the app, or a replayed code)"
    }

    package static func appRemoved(_ person: String, appName: String) -> String {
        "\(person) has no grant for \(appName): they removed the app (or never logged in to it)"
    }

    /// A token of an account that was deleted (issue 32): answered 190/458, as once every app was removed from it.
    package static func accountDeleted(at deletedAt: Date) -> String {
        "the token belongs to an account that was deleted on \(day(deletedAt)); a deleted account's apps are all "
            + "removed, so its tokens answer 190/458"
    }

    /// A login with the address of an account that was deleted: refused as an unknown address.
    package static func loginToDeletedAccount(at deletedAt: Date) -> String {
        "the address belonged to an account that was deleted on \(day(deletedAt)); the login is refused as for an unknown address"
    }

    /// `26 Nov 2026` (UTC).
    private static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy"
        return formatter.string(from: date)
    }

    // MARK: Formatting

    /// `10:02:11` in UTC (with the date in front when it is not `now`'s day is left to the reader: the entry
    /// itself carries the full time).
    package static func clockTime(_ date: Date, seconds: Bool = true) -> String {
        let total = Int(floor(date.timeIntervalSince1970))
        let day = ((total % 86_400) + 86_400) % 86_400
        let h = day / 3600, m = (day % 3600) / 60, s = day % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return seconds ? "\(two(h)):\(two(m)):\(two(s))" : "\(two(h)):\(two(m))"
    }

    /// `4 minutes ago`, `just now`, `3 days ago`.
    package static func ago(_ interval: TimeInterval) -> String {
        interval < 1 ? "just now" : duration(interval, words: true) + " ago"
    }

    /// `61d`, `4h`, `12m`, `30s` (or `4 minutes` with `words`), the largest unit only.
    package static func duration(_ interval: TimeInterval, words: Bool = false) -> String {
        let seconds = Int(interval.rounded(.down))
        let units: [(Int, String, String)] = [
            (86_400, "d", "day"), (3600, "h", "hour"), (60, "m", "minute"), (1, "s", "second"),
        ]
        for (size, short, long) in units where seconds >= size {
            let n = seconds / size
            return words ? "\(n) \(long)\(n == 1 ? "" : "s")" : "\(n)\(short)"
        }
        return words ? "0 seconds" : "0s"
    }
}

extension JournalExplanation {
    /// Why ``CodeExchange/decide(code:presented:now:)`` refused, from the same facts; nil when it issued, or when
    /// the catalogue's reason is all there is to say (a wrong secret is explained where it is checked).
    package static func codeExchange(
        _ action: CodeExchange.Action, code: AuthCodeRecord?, presented: CodeExchange.Presented, found: Bool, now: Date
    ) -> String? {
        switch action {
        case .issue: return nil
        case .rejectAndRevokeFamily: return codeAlreadyUsed(at: code?.usedAt)
        case .reject(let error):
            if error == .invalidCodeFormat {
                guard let code else {
                    return found
                        ? "this value is an app-switch nonce, redeemed only with grant_type=fb_exchange_nonce"
                        : "no code with this value was issued by this server (codes are single-use and stored only as hashes)"
                }
                return "the code was issued to app \(code.appID), not to client_id \(presented.clientID)"
            }
            guard let code else { return nil }
            if error == .codeExpired { return codeExpired(at: code.expiresAt, now: now) }
            if error == .redirectURIMismatch {
                return redirectURIMismatch(presented: presented.redirectURI, dialog: code.redirectURI)
            }
            if error == .invalidCodeVerifier {
                return presented.codeVerifier == nil
                    ? "the dialog was sent a code_challenge, so the exchange needs its code_verifier, and none was sent"
                    : "code_verifier does not hash to the code_challenge the dialog was sent (\(code.codeChallengeMethod ?? "S256"))"
            }
            return nil
        }
    }
}

extension CodeExchange.Action {
    /// Whether the exchange is refused.
    package var isRefusal: Bool {
        if case .issue = self { return false }
        return true
    }
}
