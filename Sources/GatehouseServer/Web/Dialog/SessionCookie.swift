import GatehouseCore
import Hummingbird

/// The names of the two session cookies (`gh_session` for people, `gh_admin` for the console) and the rule that a
/// request carries at most one of each.
///
/// Wherever the cookie is `Secure` its name carries the `__Host-` prefix: a browser then accepts it only from this
/// very host, over https, with `Path=/` and no `Domain`. Without the prefix a sibling subdomain could plant
/// `gh_session` with a longer path; the browser sends the longer-path cookie first, Hummingbird's lookup takes the
/// first, and the victim's next login would complete as the attacker. Plain-http loopback development cannot set
/// `Secure`, and browsers refuse `__Host-` cookies without it, so there the plain name stays.
///
/// The plain name is not read where the prefixed one is expected, not even once for the upgrade: reading it is the
/// hole itself. After upgrading, people and administrators log in once more; their tokens are untouched.
enum SessionCookie {
    /// The prefix browsers enforce (RFC 6265bis §4.1.3.2).
    static let hostPrefix = "__Host-"

    /// `__Host-<base>` when the deployment's cookies are `Secure`, `<base>` on plain-http loopback development.
    static func name(_ base: String, _ configuration: GatehouseConfiguration) -> String {
        configuration.usesSecureCookies ? hostPrefix + base : base
    }

    /// The value of the cookie `name` when the request carries exactly one cookie of that name; nil for none or
    /// several.
    ///
    /// Two cookies of one name mean someone planted one (a sibling subdomain, or a man in the middle on plain
    /// http): which of them is the person's own cannot be told, so neither is trusted and the request has no
    /// session. The raw `Cookie` fields are counted here because Hummingbird's lookup silently keeps the first.
    static func single(_ name: String, in request: Request) -> String? {
        var found: Substring?
        var count = 0
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                count += 1
                guard count == 1 else { return nil }
                found = trimmed[trimmed.index(after: equals)...]
            }
        }
        guard let found else { return nil }
        return String(found.trimmingSuffix(while: { $0 == " " || $0 == "\t" }))
    }
}

private extension Substring {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
