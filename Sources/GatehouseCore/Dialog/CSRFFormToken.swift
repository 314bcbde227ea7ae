import Crypto
import Foundation
import GatehouseProtocol

/// The double-submit CSRF token of the login and consent forms, bound to the browser's session cookies so a
/// token taken from one session is worthless in another.
package enum CSRFFormToken {
    /// The form token for CSRF cookie `raw` when the request carries these session cookie values (in the order
    /// dialog session, admin session); the bench seeder uses it to build a valid consent POST.
    package static func bind(_ raw: String, toSessionSecrets secrets: [String]) -> String {
        guard !secrets.isEmpty else { return raw }
        let key = SymmetricKey(
            data: SHA256.hash(data: Data(("gatehouse-csrf\n" + secrets.joined(separator: "\n")).utf8)))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(raw.utf8), using: key)
        return raw + "." + Base64URL.encode(Array(mac))
    }
}
