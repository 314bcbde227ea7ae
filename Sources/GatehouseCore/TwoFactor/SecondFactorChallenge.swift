import Crypto
import Foundation

/// Proof that a browser typed a person's password a moment ago and now owes their login code: the value of the
/// `gh_2fa` cookie between the password and the checkpoint.
///
/// `userID.issuedAt.mac` (or `userID.issuedAt.c.mac` when ``passedCheckpoint``), with an HMAC-SHA256 under a
/// server key over the person, the time, the flag and their password's change date, so the cookie cannot be
/// forged, dies after ``lifetime``, and dies at once when the password is changed. No session exists until the
/// code is right.
package struct SecondFactorChallenge: Sendable, Equatable {
    package var userID: String
    package var issuedAt: Date
    /// The browser passed the person's checkpoint page on the way here: the checkpoint clears only once the login
    /// code is right too, so the password alone never clears it.
    package var passedCheckpoint: Bool

    /// Ten minutes to find the phone.
    package static let lifetime: TimeInterval = 600

    package init(userID: String, issuedAt: Date, passedCheckpoint: Bool = false) {
        self.userID = userID
        self.issuedAt = issuedAt
        self.passedCheckpoint = passedCheckpoint
    }

    /// The cookie value.
    package func sealed(key: [UInt8], passwordChangedAt: Date?) -> String {
        let issued = Int64(issuedAt.timeIntervalSince1970)
        let mac = Self.mac(userID, issued, passedCheckpoint, passwordChangedAt, key)
        return passedCheckpoint ? "\(userID).\(issued).c.\(mac)" : "\(userID).\(issued).\(mac)"
    }

    /// The challenge in a cookie value, when its MAC holds for `user`'s current password and it has not expired.
    /// - Parameter passwordChangedAt: looks the person's password change date up by id (nil: no such person).
    package static func open(
        _ value: String, key: [UInt8], now: Date, passwordChangedAt: (String) async throws -> Date??
    ) async rethrows -> SecondFactorChallenge? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.count <= 200, parts.count == 3 || (parts.count == 4 && parts[2] == "c"),
            let issued = Int64(parts[1]), !parts[0].isEmpty
        else { return nil }
        let userID = String(parts[0])
        let issuedAt = Date(timeIntervalSince1970: TimeInterval(issued))
        let passedCheckpoint = parts.count == 4
        guard issuedAt <= now.addingTimeInterval(60), now.timeIntervalSince(issuedAt) < lifetime,
            let changed = try await passwordChangedAt(userID),
            constantTimeEquals(mac(userID, issued, passedCheckpoint, changed, key), String(parts[parts.count - 1]))
        else { return nil }
        return SecondFactorChallenge(userID: userID, issuedAt: issuedAt, passedCheckpoint: passedCheckpoint)
    }

    private static func mac(
        _ userID: String, _ issued: Int64, _ passedCheckpoint: Bool, _ changed: Date?, _ key: [UInt8]
    )
        -> String
    {
        let changedText = changed.map { String(Int64($0.timeIntervalSince1970)) } ?? "-"
        // The flag is signed only when set, so a challenge without it keeps the MAC it always had.
        let message = Data(
            "gatehouse-2fa|\(userID)|\(issued)|\(changedText)\(passedCheckpoint ? "|checkpoint" : "")".utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Data(code).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
