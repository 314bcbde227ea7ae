import Foundation

/// How sign-up, password reset and login read an email address: trimmed, Unicode-normalised (NFC) and
/// lower-cased before it is looked up or checked for uniqueness, so `Ann@Example.COM ` and `ann@example.com`
/// are one account.
enum EmailAddress {
    /// The normalised address, or nil when it is not a plausible address (Facebook's "Please enter a valid
    /// mobile number or email address.").
    static func normalised(_ raw: String) -> String? {
        let address = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            .lowercased()
        guard address.utf8.count <= 254 else { return nil }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let local = parts[0], domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= 64, !local.hasPrefix("."), !local.hasSuffix("."),
            !local.contains("..")
        else { return nil }
        guard
            local.unicodeScalars.allSatisfy({
                $0.value > 0x20 && $0.value != 0x7F && !"()<>,;:\\\"[]".unicodeScalars.contains($0)
            })
        else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                label.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" })
            else { return nil }
        }
        return address
    }
}
