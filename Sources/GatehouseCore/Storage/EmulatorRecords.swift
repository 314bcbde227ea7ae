import Foundation

/// What an injected error applies to.
package enum InjectionTargetKind: String, Sendable, Codable, CaseIterable {
    /// Every Graph call made with any token of this person (global user id).
    case user
    /// Every Graph call made for this app, by any token.
    case app
    /// Every Graph call made with one token (the token record's id).
    case token
}

/// A Facebook error the emulator answers Graph calls with, once, N times, or until cleared.
package struct InjectedErrorRecord: Sendable, Codable, Equatable {
    package var id: String
    package var targetKind: InjectionTargetKind
    package var targetID: String
    /// The Graph error code (190, 4, 17, 2, 200, …).
    package var code: Int
    package var subcode: Int?
    /// Calls left to fail; nil means until cleared.
    package var remaining: Int?
    package var createdAt: Date

    package init(
        id: String, targetKind: InjectionTargetKind, targetID: String, code: Int, subcode: Int?, remaining: Int?,
        createdAt: Date
    ) {
        self.id = id
        self.targetKind = targetKind
        self.targetID = targetID
        self.code = code
        self.subcode = subcode
        self.remaining = remaining
        self.createdAt = createdAt
    }
}
