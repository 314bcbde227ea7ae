import Foundation
import GatehouseProtocol
import Hummingbird

/// A page of a v1 list: `?limit=` (1…200, default 50) and `?cursor=` (opaque), answered as
/// `{"data": [...], "next_cursor": string|null}`.
///
/// The cursor is the position after the last item served, base64url-encoded so clients treat it as opaque (its
/// form may change). Lists are in creation order, so a new item never moves an earlier one to another page.
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

    static func encode(_ offset: Int) -> String {
        Data("o:\(offset)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
    }

    static func decode(_ cursor: String) -> Int? {
        guard cursor.count <= 64 else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("o:"),
            let value = Int(text.dropFirst(2)), value >= 0
        else { return nil }
        return value
    }
}
