import GatehouseCore
import Foundation
import SQLKit

/// `EmulatorStore` over any `SQLDatabase`: tables `injected_errors` and `emulator_settings`.
package struct SQLEmulatorStore: EmulatorStore {
    package let context: SQLStoreContext

    /// Creates the store over a migrated database.
    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }

    package static let columns = ["id", "target_kind", "target_id", "code", "subcode", "remaining", "created_at"]

    package func insertInjection(_ injection: InjectedErrorRecord) async throws {
        try await context.run {
            try await db.insert(into: "injected_errors").columns(Self.columns).values(Self.values(injection)).run()
        }
    }

    package static func values(_ injection: InjectedErrorRecord) -> [any Encodable & Sendable] {
        [
            injection.id, injection.targetKind.rawValue, injection.targetID, Int64(injection.code),
            injection.subcode.map(Int64.init), injection.remaining.map(Int64.init),
            SQLCodec.seconds(injection.createdAt),
        ]
    }

    package func injections() async throws -> [InjectedErrorRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("injected_errors")
                .orderBy("created_at").orderBy("id").all().map(Self.decode)
        }
    }

    package func injections(targets: [(InjectionTargetKind, String)]) async throws -> [InjectedErrorRecord] {
        guard !targets.isEmpty else { return [] }
        return try await context.run {
            try await db.select().columns(Self.columns).from("injected_errors")
                .where { group in
                    for (kind, id) in targets {
                        group.orWhere { $0.where("target_kind", .equal, kind.rawValue).where("target_id", .equal, id) }
                    }
                    return group
                }
                .orderBy("created_at").orderBy("id").all().map(Self.decode)
        }
    }

    /// `UPDATE … SET remaining = remaining - 1 WHERE id = ? AND remaining > 0 RETURNING remaining`: the
    /// database picks the winner when two requests race for the last failure.
    package func consumeInjection(id: String) async throws -> Bool {
        try await context.run {
            guard
                let row = try await db.select().column("remaining").from("injected_errors").where("id", .equal, id)
                    .first()
            else {
                return false
            }
            guard try row.decode(column: "remaining", as: Int64?.self) != nil else { return true }
            let left = try await db.update("injected_errors")
                .set(SQLIdentifier("remaining"), to: SQLRaw("remaining - 1"))
                .where("id", .equal, id).where("remaining", .greaterThan, Int64(0))
                .returning("remaining").all()
            guard let remaining = try left.first?.decode(column: "remaining", as: Int64.self) else { return false }
            if remaining <= 0 {
                try await db.delete(from: "injected_errors").where("id", .equal, id).run()
            }
            return true
        }
    }

    package func deleteInjection(id: String) async throws -> Bool {
        try await context.run {
            !(try await db.delete(from: "injected_errors").where("id", .equal, id).returning("id").all()).isEmpty
        }
    }

    package func deleteAllInjections() async throws {
        try await context.run { try await db.delete(from: "injected_errors").run() }
    }

    package func setting(_ name: String) async throws -> String? {
        try await context.run {
            try await db.select().column("value").from("emulator_settings").where("name", .equal, name)
                .first()?.decode(column: "value", as: String.self)
        }
    }

    package func setSetting(_ name: String, _ value: String?) async throws {
        try await context.run {
            guard let value else {
                try await db.delete(from: "emulator_settings").where("name", .equal, name).run()
                return
            }
            try await db.insert(into: "emulator_settings").columns("name", "value").values(name, value)
                .onConflict(with: ["name"]) { $0.set(excludedValueOf: "value") }
                .run()
        }
    }

    package static func decode(_ row: any SQLRow) throws -> InjectedErrorRecord {
        let r = RowReader(row)
        return InjectedErrorRecord(
            id: try r.string("id"),
            targetKind: InjectionTargetKind(rawValue: try r.string("target_kind")) ?? .user,
            targetID: try r.string("target_id"),
            code: Int(try row.decode(column: "code", as: Int64.self)),
            subcode: try row.decode(column: "subcode", as: Int64?.self).map(Int.init),
            remaining: try row.decode(column: "remaining", as: Int64?.self).map(Int.init),
            createdAt: try r.date("created_at"))
    }
}
