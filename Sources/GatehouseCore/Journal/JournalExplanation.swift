import Foundation
import GatehouseProtocol

/// Plain-language reasons for refusals, for the journal (never the wire, where Facebook's exact error stays).
///
/// A Graph error carries its own reason, set by the factory that makes it (``GraphError/explanation``); the
/// token cache's codes carry theirs (`TokenCacheWire.ErrorCode.explanation`). These functions build the
/// contextual reasons the handlers give when they know more (which URI, when the code was used, by whom), and the
/// generic one for a refusal that is no Graph error.
package enum JournalExplanation {
    /// The reason for `error`: the one its factory gave, or, for an error that came without one (decoded from a
    /// response), its code.
    package static func of(_ error: GraphError) -> String {
        error.explanation ?? "refused with Graph error \(error.code)\(error.errorSubcode.map { "/\($0)" } ?? "")"
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
    /// the error's own reason is all there is to say (a wrong secret is explained where it is checked).
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
