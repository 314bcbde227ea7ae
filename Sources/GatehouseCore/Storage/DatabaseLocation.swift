import Foundation

/// Where the server's data lives: a SQLite file (one node) or a PostgreSQL database (one or more nodes).
///
/// Parsing (`init(parsing:)`), opening and migrating live with the drivers, in `GatehouseStorage`.
package enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// For banners and logs: the path, or the URL with its password masked.
    package var description: String {
        switch self {
        case .sqlite(let path): "SQLite \(path)"
        case .postgres(let url): "PostgreSQL \(Self.redacted(url))"
        }
    }

    /// `url` with its password masked, for logs and errors.
    package static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "postgres://…"
    }
}
