import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// An RFC 9457 problem answer of the v1 admin API (`application/problem+json`).
///
/// Each kind has a stable `type` URI that clients switch on; `title` is the kind's fixed wording and `detail`
/// says what was wrong with this request. A validation problem names the body field or query parameter in `field`.
package struct Problem: Error, Equatable {
    /// The kinds the document promises; the raw value is the last segment of `type`.
    enum Kind: String, CaseIterable, Sendable {
        case validation, notFound = "not-found", conflict, tooLarge = "too-large", unauthorized, forbidden
        case unsupportedMediaType = "unsupported-media-type", unavailable
        case methodNotAllowed = "method-not-allowed"

        var status: HTTPResponse.Status {
            switch self {
            case .validation: .badRequest
            case .notFound: .notFound
            case .conflict: .conflict
            case .tooLarge: .contentTooLarge
            case .unauthorized: .unauthorized
            case .forbidden: .forbidden
            case .unsupportedMediaType: .unsupportedMediaType
            case .unavailable: .serviceUnavailable
            case .methodNotAllowed: .methodNotAllowed
            }
        }

        var title: String {
            switch self {
            case .validation: "The request is not valid"
            case .notFound: "No such resource"
            case .conflict: "The request conflicts with the current state"
            case .tooLarge: "The body is too large"
            case .unauthorized: "Authentication is required"
            case .forbidden: "Not allowed"
            case .unsupportedMediaType: "Send application/json"
            case .unavailable: "The server cannot do this now"
            case .methodNotAllowed: "This path does not answer this method"
            }
        }
    }

    static let typeBase = "https://gatehouse.dev/problems/"

    var kind: Kind
    package var detail: String
    var field: String?

    init(_ kind: Kind, _ detail: String, field: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.field = field
    }

    static func validation(_ field: String, _ detail: String) -> Problem { Problem(.validation, detail, field: field) }
    static func notFound(_ detail: String) -> Problem { Problem(.notFound, detail) }
    static func conflict(_ detail: String, field: String? = nil) -> Problem { Problem(.conflict, detail, field: field) }

    var json: JSONValue {
        var object: JSONObject = [
            "type": .string(Self.typeBase + kind.rawValue), "title": .string(kind.title),
            "status": .int(Int64(kind.status.code)), "detail": .string(detail),
        ]
        if let field { object["field"] = .string(field) }
        return .object(object)
    }

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        if kind == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"gatehouse-admin\"" }
        return Response(
            status: kind.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json.serialized())))
    }

    /// The problem for an error thrown by a shared service (accounts, storage, clock, injections), so every
    /// resource maps them the same way.
    static func from(_ error: any Error) -> Problem? {
        switch error {
        case let problem as Problem: return problem
        case let error as AccountError: return .validation("body", error.description)
        case StorageError.notFound: return .notFound("the resource no longer exists")
        case StorageError.conflict(let what): return .conflict("\(what) is already taken", field: what)
        case StorageError.unavailable(let message):
            return Problem(.unavailable, "the database is unavailable (\(message))")
        case let error as ClockControl.ClockError:
            return error == .notControllable
                ? Problem(.forbidden, error.description) : .validation("by", error.description)
        case let error as ErrorInjector.InjectionError:
            switch error {
            case .disabled: return Problem(.forbidden, error.description)
            case .unknownTarget: return .validation("id", error.description)
            case .invalidCount: return .validation("times", error.description)
            case .unknownError: return .validation("error", error.description)
            }
        default: return nil
        }
    }
}
