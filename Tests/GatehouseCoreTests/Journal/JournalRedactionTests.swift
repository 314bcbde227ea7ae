import Foundation
@testable import GatehouseCore
import Testing

@Suite struct JournalRedactionTests {
    @Test func secretsShowTheirLastFourCharacters() {
        #expect(JournalRedaction.secret("0123456789abcdef") == "…cdef")
        #expect(JournalRedaction.secret("abcd") == "…")
        #expect(JournalRedaction.secret("") == "…")
    }

    @Test func tokensShowTheirStoredHashPrefix() {
        let token = "EAAGexampletoken"
        #expect(JournalRedaction.tokenHashPrefix(token) == String(SecretHash.sha256Hex(token).prefix(12)))
        #expect(JournalRedaction.tokenHashPrefix(token).count == 12)
    }

    @Test func keepsOnlyTheParametersThatMatterRedacted() {
        let kept = JournalRedaction.parameters([
            ("client_id", "1000000001"), ("client_secret", "s3cr3t-value-9f2a"), ("code", "AQDcode"),
            ("access_token", "EAAGtoken"), ("appsecret_proof", "deadbeefcafe1234"), ("password", "hunter2"),
            ("csrf_token", "xyz"), ("message", "hello"), ("redirect_uri", "http://localhost:3000/cb"),
            ("client_id", "other"),
        ])
        let byName = Dictionary(uniqueKeysWithValues: kept.map { ($0.name, $0.value) })
        #expect(byName["client_id"] == "1000000001")
        #expect(byName["client_secret"] == "…9f2a")
        #expect(byName["appsecret_proof"] == "…1234")
        #expect(byName["code"] == "#" + JournalRedaction.tokenHashPrefix("AQDcode"))
        #expect(byName["access_token"] == "#" + JournalRedaction.tokenHashPrefix("EAAGtoken"))
        #expect(byName["redirect_uri"] == "http://localhost:3000/cb")
        #expect(byName["password"] == nil && byName["csrf_token"] == nil && byName["message"] == nil)
        #expect(kept.count == 6)
        // No full secret survives anywhere in what is kept.
        for secret in ["s3cr3t-value-9f2a", "AQDcode", "EAAGtoken", "deadbeefcafe1234", "hunter2"] {
            #expect(!kept.contains { $0.value.contains(secret) })
        }
    }

    @Test func longPlainValuesAreCut() {
        let kept = JournalRedaction.parameters([("fields", String(repeating: "a", count: 500))])
        #expect(kept[0].value.count == JournalRedaction.maximumLength + 1)
    }
}
