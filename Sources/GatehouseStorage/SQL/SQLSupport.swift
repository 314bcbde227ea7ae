import GatehouseCore
import Foundation
import GatehouseProtocol
import SQLKit
import SQLiteKit

/// Turns a database driver's errors into the `StorageError` cases the server understands.
///
/// Each backend supplies its own classifier (``sqlite`` today; a PostgreSQL one would look at SQLSTATE
/// `23505`/`23503`). Messages never carry bound values, so secrets and hashes stay out of errors.
package struct SQLErrorClassifier: Sendable {
    /// What a driver error means to the stores.
    package enum Kind: Sendable, Equatable {
        /// A UNIQUE or PRIMARY KEY constraint was broken; `detail` names the constraint or columns.
        case uniqueViolation(detail: String)
        /// A row referenced something that does not exist (foreign key).
        case foreignKeyViolation
        /// Anything else: the database could not be reached or refused the statement.
        case unavailable(String)
    }

    /// Classifies one error thrown by the driver and says what it is in words (for messages and logs).
    package func describe(_ error: any Error) -> String {
        switch classify(error) {
        case .uniqueViolation(let detail): "unique constraint violated (\(detail))"
        case .foreignKeyViolation: "foreign key violated"
        case .unavailable(let message): message
        }
    }

    /// Classifies one error thrown by the driver.
    package var classify: @Sendable (any Error) -> Kind

    /// Creates a classifier from a function.
    package init(classify: @escaping @Sendable (any Error) -> Kind) {
        self.classify = classify
    }

    /// The classifier for SQLiteNIO's `SQLiteError`.
    package static let sqlite = SQLErrorClassifier { error in
        guard let error = error as? SQLiteError else { return genericKind(error) }
        switch error.reason {
        case .constraintUniqueFailed, .constraintPrimaryKeyFailed, .constraintUniqueRowIDFailed:
            return .uniqueViolation(detail: error.message)
        case .constraintForeignKeyFailed:
            return .foreignKeyViolation
        default:
            return .unavailable("SQLite error (\(error.reason)): \(error.message)")
        }
    }

    /// `error` as the stores throw it: a `StorageError` as it is, a driver's error by its kind.
    /// - Parameter uniqueConflict: maps a unique-violation detail to the `conflict` text (nil: the detail itself).
    package func storageError(_ error: any Error, uniqueConflict: ((String) -> String)? = nil) -> StorageError {
        if let error = error as? StorageError { return error }
        switch classify(error) {
        case .uniqueViolation(let detail): return .conflict(uniqueConflict?(detail) ?? detail)
        case .foreignKeyViolation: return .notFound
        case .unavailable(let message): return .unavailable(message)
        }
    }

    /// The fallback for errors no driver-specific rule recognises: only the type name is reported.
    package static func genericKind(_ error: any Error) -> Kind {
        if error is DecodingError { return .unavailable("stored data could not be decoded") }
        return .unavailable("database error (\(String(describing: type(of: error))))")
    }
}

/// What every SQL store shares: the database and how to read its errors.
package struct SQLStoreContext: Sendable {
    package let db: any SQLDatabase
    package let errors: SQLErrorClassifier

    package init(db: any SQLDatabase, errors: SQLErrorClassifier) {
        self.db = db
        self.errors = errors
    }

    /// Runs `body`, translating driver errors into `StorageError`.
    /// - Parameter uniqueConflict: maps a unique-violation detail to the `conflict` text (nil: the detail itself).
    package func run<T>(
        uniqueConflict: ((String) -> String)? = nil,
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch {
            throw errors.storageError(error, uniqueConflict: uniqueConflict)
        }
    }
}

/// Conversions between Swift values and the portable column representations.
///
/// Dates are whole unix seconds (BIGINT), rounded down; string lists are JSON arrays in TEXT columns.
package enum SQLCodec {
    package static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    package static func seconds(_ date: Date?) -> Int64? {
        date.map { seconds($0) }
    }

    package static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    package static func json(_ list: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
    }

    /// A list column's JSON array of strings. Read with the house parser, not `JSONDecoder`: every caller-cache
    /// miss decodes several lists, and `JSONDecoder` builds a decoder and a container tree for each one.
    /// - Throws: `DecodingError` when the text is not an array of strings, as `JSONDecoder` did, so the store
    ///   reports "stored data could not be decoded".
    package static func list(_ json: String) throws -> [String] {
        if json == "[]" { return [] }
        guard case .array(let items)? = try? JSONValue.parse(json) else { throw notAList }
        return try items.map { item in
            guard case .string(let text) = item else { throw notAList }
            return text
        }
    }

    private static let notAList = DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "a stored list is not a JSON array of strings"))
}

/// Typed, column-by-name access to one result row.
package struct RowReader {
    package let row: any SQLRow

    package init(_ row: any SQLRow) { self.row = row }

    package func string(_ column: String) throws -> String { try row.decode(column: column, as: String.self) }
    package func optionalString(_ column: String) throws -> String? { try row.decode(column: column, as: String?.self) }
    package func bool(_ column: String) throws -> Bool { try row.decode(column: column, as: Bool.self) }
    package func data(_ column: String) throws -> Data? { try row.decode(column: column, as: Data?.self) }
    package func date(_ column: String) throws -> Date { SQLCodec.date(try row.decode(column: column, as: Int64.self)) }
    package func optionalDate(_ column: String) throws -> Date? {
        try row.decode(column: column, as: Int64?.self).map(SQLCodec.date)
    }
    package func list(_ column: String) throws -> [String] { try SQLCodec.list(string(column)) }
    package func place(id idColumn: String, name nameColumn: String) throws -> Place? {
        guard let id = try optionalString(idColumn) else { return nil }
        return Place(id: id, name: try optionalString(nameColumn) ?? "")
    }
}
