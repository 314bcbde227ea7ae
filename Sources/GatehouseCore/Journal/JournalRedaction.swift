import Foundation

/// How the journal shows what a request carried: only the parameters that matter, secrets as their last four
/// characters, tokens and codes as the prefix of their SHA-256 (the same hash the stores keep, so a prefix
/// finds the token's row), and nothing else.
package enum JournalRedaction {
    /// How a parameter's value is shown.
    enum Treatment {
        case plain
        /// Last four characters: `…a1b2`.
        case secret
        /// SHA-256 prefix: `#0123456789ab`.
        case hashed
    }

    /// The parameters kept, and how. Everything else (passwords, CSRF tokens, message texts, batch bodies,
    /// pictures) is dropped.
    static let kept: [String: Treatment] = [
        "client_id": .plain, "app_id": .plain, "redirect_uri": .plain, "grant_type": .plain, "response_type": .plain,
        "scope": .plain, "auth_type": .plain, "fields": .plain, "ids": .plain, "display": .plain,
        "return_scopes": .plain,
        "default_audience": .plain, "permission": .plain, "code_challenge_method": .plain, "tp": .plain, "type": .plain,
        "q": .plain, "limit": .plain, "after": .plain, "before": .plain, "kind": .plain, "action": .plain,
        "client_secret": .secret, "appsecret_proof": .secret, "code_verifier": .secret, "code_challenge": .secret,
        "state": .secret, "nonce": .secret, "user_code": .secret,
        "access_token": .hashed, "input_token": .hashed, "fb_exchange_token": .hashed, "code": .hashed,
        "fb_exchange_nonce": .hashed,
    ]

    /// The kept names in the order entries list them.
    static let order: [String] = kept.keys.sorted()

    /// The parameters that matter from a dictionary, redacted, by name: a walk over the short list of kept
    /// names (no sort of what the request sent).
    package static func parameters(_ dictionary: [String: String]) -> [JournalEntry.Parameter] {
        var out: [JournalEntry.Parameter] = []
        for name in order {
            guard let value = dictionary[name], let treatment = kept[name] else { continue }
            out.append(JournalEntry.Parameter(name: name, value: redact(value, treatment)))
        }
        return out
    }

    /// Longest value shown (plain values are cut, with `…`).
    static let maximumLength = 200

    /// `…a1b2`: the last four characters; a value of four or fewer characters is shown as `…` alone.
    package static func secret(_ value: String) -> String {
        value.count > 4 ? "…" + value.suffix(4) : "…"
    }

    /// The first 12 hex digits of the token's SHA-256, as stored in `tokens.token_hash`.
    package static func tokenHashPrefix(_ token: String) -> String {
        String(SecretHash.sha256Hex(token).prefix(12))
    }

    /// The parameters that matter, redacted, in the order given; a name's first value wins.
    package static func parameters(_ pairs: some Sequence<(String, String)>) -> [JournalEntry.Parameter] {
        var out: [JournalEntry.Parameter] = []
        for (name, value) in pairs {
            guard let treatment = kept[name], !out.contains(where: { $0.name == name }) else { continue }
            out.append(JournalEntry.Parameter(name: name, value: redact(value, treatment)))
        }
        return out
    }

    static func redact(_ value: String, _ treatment: Treatment) -> String {
        switch treatment {
        case .plain: value.count > maximumLength ? String(value.prefix(maximumLength)) + "…" : value
        case .secret: secret(value)
        case .hashed: value.isEmpty ? "" : "#" + tokenHashPrefix(value)
        }
    }
}
