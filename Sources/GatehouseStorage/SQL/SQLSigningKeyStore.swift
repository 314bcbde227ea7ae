import GatehouseCore
import Foundation
import SQLKit

/// `SigningKeyStore` over any `SQLDatabase`: table `signing_keys` (unique `kid`).
package struct SQLSigningKeyStore: SigningKeyStore {
    package let context: SQLStoreContext

    package init(database: any SQLDatabase, errors: SQLErrorClassifier = .sqlite) {
        self.context = SQLStoreContext(db: database, errors: errors)
    }

    private var db: any SQLDatabase { context.db }
    package static let columns = [
        "kid", "private_key_pem", "certificate_pem", "created_at", "retired_at", "publish_until",
    ]

    package func insert(_ key: SigningKeyRecord) async throws {
        try await context.run(uniqueConflict: { _ in "kid" }) {
            try await db.insert(into: "signing_keys").columns(Self.columns).values(Self.values(key)).run()
        }
    }

    package static func values(_ key: SigningKeyRecord) -> [any Encodable & Sendable] {
        [
            key.kid, key.privateKeyPEM, key.certificatePEM, SQLCodec.seconds(key.createdAt),
            SQLCodec.seconds(key.retiredAt), SQLCodec.seconds(key.publishUntil),
        ]
    }

    package func all() async throws -> [SigningKeyRecord] {
        try await context.run {
            try await db.select().columns(Self.columns).from("signing_keys").orderBy("seq").all().map { row in
                let r = RowReader(row)
                return SigningKeyRecord(
                    kid: try r.string("kid"), privateKeyPEM: try r.string("private_key_pem"),
                    certificatePEM: try r.string("certificate_pem"), createdAt: try r.date("created_at"),
                    retiredAt: try r.optionalDate("retired_at"), publishUntil: try r.optionalDate("publish_until"))
            }
        }
    }

    /// Keeps the first retirement; unknown kids are ignored.
    package func retire(kid: String, at: Date, publishUntil: Date) async throws {
        try await context.run {
            try await db.update("signing_keys")
                .set("retired_at", to: SQLCodec.seconds(at))
                .set("publish_until", to: SQLCodec.seconds(publishUntil))
                .where("kid", .equal, kid)
                .where("retired_at", .is, SQLLiteral.null)
                .run()
        }
    }
}
