import Foundation
import GatehouseProtocol
import Hummingbird

/// A page of a v1 list: `?limit=` (1…200, default 50) and `?cursor=` (opaque), answered as
/// `{"data": [...], "next_cursor": string|null}`.
///
/// The cursor is the position after the last item served, written `o` and digits (the document's `cursor`
/// pattern, so every cursor of that form is answered: one past the end is an empty page). Clients pass it back as
/// given. Lists are in creation order, so a new item never moves an earlier one to another page.
struct Page: Equatable {
    static let defaultLimit = 50
    static let maximumLimit = 200

    var limit: Int
    var offset: Int

    /// - Throws: a validation ``Problem`` naming `limit` or `cursor`.
    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        if let text = query["limit"].map(String.init) {
            guard let value = Int(text), (1...Self.maximumLimit).contains(value) else {
                throw Problem.validation("limit", "limit must be a whole number from 1 to \(Self.maximumLimit)")
            }
            limit = value
        } else {
            limit = Self.defaultLimit
        }
        if let cursor = query["cursor"].map(String.init) {
            guard let value = Self.decode(cursor) else {
                throw Problem.validation("cursor", "the cursor is not one this server gave out")
            }
            offset = value
        } else {
            offset = 0
        }
    }

    /// The page of `items`, each rendered by `render`.
    func answer<T>(_ items: [T], _ render: (T) throws -> JSONValue) rethrows -> JSONValue {
        let start = min(offset, items.count), end = min(items.count, start + limit)
        let data = try items[start..<end].map(render)
        return ["data": .array(data), "next_cursor": end < items.count ? .string(Self.encode(end)) : .null]
    }

    static func encode(_ offset: Int) -> String { "o\(offset)" }

    /// The offset a cursor names: `o` and 1 to 15 digits, as `components.parameters.cursor` writes it.
    static func decode(_ cursor: String) -> Int? { Self.number(after: "o", in: cursor).map(Int.init) }

    /// The number after `prefix` when `cursor` is `prefix` and 1 to 15 ASCII digits, else nil.
    static func number(after prefix: Character, in cursor: String) -> Int64? {
        let digits = cursor.dropFirst()
        guard cursor.first == prefix, (1...15).contains(digits.count),
            digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return Int64(digits)
    }
}
