import GatehouseCore
import Foundation
import PostgresNIO

extension SQLErrorClassifier {
    /// The classifier for PostgresNIO's `PSQLError`, by SQLSTATE: `23505` unique violation, `23503` foreign key
    /// violation, anything else (including every connection failure) unavailable.
    ///
    /// A unique violation's detail is the constraint's name (e.g. `tokens_token_hash_key`), never the server's
    /// DETAIL line, which quotes the offending value.
    package static let postgres = SQLErrorClassifier { error in
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? "?"
                switch state {
                case "23505":
                    let constraint = error.serverInfo?[.constraintName] ?? ""
                    let table = error.serverInfo?[.tableName] ?? ""
                    return .uniqueViolation(detail: table.isEmpty ? constraint : "\(table): \(constraint)")
                case "23503":
                    return .foreignKeyViolation
                default:
                    return .unavailable("PostgreSQL error (SQLSTATE \(state))")
                }
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                return .unavailable("PostgreSQL is unreachable")
            default:
                return .unavailable("PostgreSQL error (\(error.code))")
            }
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            return .unavailable("PostgreSQL is unreachable")
        }
        return genericKind(error)
    }
}
