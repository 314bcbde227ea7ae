import Foundation
import Testing
import GatehouseCore
import GatehouseStorage
import GatehouseTestSupport

/// The mail outbox and single-use account codes (migration 15), on both backends.
@Suite struct AccountMailStorageTests {
    @Test func messagesAreListedNewestFirstClaimedOnceUpdatedAndDeleted() async throws {
        try await withEachBackend { storage in
            let mail = try #require(storage.mail)
            let first = MailMessageRecord(
                id: "m1", kind: "confirm_email", userID: "1", to: "Ann@Example.com", subject: "Confirm", text: "t",
                html: "<p>h</p>",
                createdAt: TestTime.at(10), nextAttemptAt: TestTime.at(10))
            let second = MailMessageRecord(
                id: "m2", kind: "reset_password", userID: nil, to: "bob@example.com", subject: "Reset", text: "t2",
                html: "h2",
                createdAt: TestTime.at(20), nextAttemptAt: nil)
            try await mail.insert(first)
            try await mail.insert(second)
            #expect(try await mail.find(id: "m1") == first)
            #expect(try await mail.list(to: nil, limit: 10).map(\.id) == ["m2", "m1"])
            #expect(try await mail.list(to: "ann@example.com", limit: 10) == [first])
            #expect(try await mail.due(now: TestTime.at(15), limit: 10).map(\.id) == ["m1"])
            #expect(
                try await mail.claim(id: "m1", expectedNextAttemptAt: TestTime.at(10), leaseUntil: TestTime.at(100)))
            #expect(
                try await mail.claim(id: "m1", expectedNextAttemptAt: TestTime.at(10), leaseUntil: TestTime.at(100))
                    == false)
            var sent = first
            sent.attempts = 1
            sent.nextAttemptAt = nil
            sent.deliveredAt = TestTime.at(11)
            sent.lastError = "exit 75"
            try await mail.update(sent)
            #expect(try await mail.find(id: "m1") == sent)
            #expect(try await mail.delete(id: "m1"))
            #expect(try await mail.delete(id: "m1") == false)
            #expect(try await mail.deleteAll() == 1)
            #expect(try await mail.list(to: nil, limit: 10).isEmpty)
        }
    }

    @Test func aCodeIsConsumedOnceOnlyForItsPurposeAndOnlyBeforeItExpires() async throws {
        try await withEachBackend { storage in
            let codes = try #require(storage.accountCodes)
            try await storage.users.create(Fixture.user("1"))
            let reset = AccountCodeRecord(
                codeHash: "h1", purpose: .resetPassword, userID: "1", email: "a@example.com", createdAt: TestTime.at(0),
                expiresAt: TestTime.at(100))
            try await codes.insert(reset)
            #expect(try await codes.find(codeHash: "h1") == reset)
            #expect(try await codes.consume(codeHash: "h1", purpose: .confirmEmail, at: TestTime.at(5)) == nil)
            var used = reset
            used.usedAt = TestTime.at(5)
            #expect(try await codes.consume(codeHash: "h1", purpose: .resetPassword, at: TestTime.at(5)) == used)
            #expect(try await codes.consume(codeHash: "h1", purpose: .resetPassword, at: TestTime.at(6)) == nil)
            #expect(try await codes.find(codeHash: "h1")?.usedAt == TestTime.at(5))

            let late = AccountCodeRecord(
                codeHash: "h2", purpose: .resetPassword, userID: "1", email: "a@example.com", createdAt: TestTime.at(0),
                expiresAt: TestTime.at(100))
            try await codes.insert(late)
            #expect(try await codes.consume(codeHash: "h2", purpose: .resetPassword, at: TestTime.at(100)) == nil)

            let replaced = AccountCodeRecord(
                codeHash: "h3", purpose: .resetPassword, userID: "1", email: "a@example.com", createdAt: TestTime.at(0),
                expiresAt: TestTime.at(100))
            try await codes.insert(replaced)
            try await codes.expireAll(userID: "1", purpose: .resetPassword, at: TestTime.at(50))
            #expect(try await codes.consume(codeHash: "h3", purpose: .resetPassword, at: TestTime.at(51)) == nil)

            let invitation = AccountCodeRecord(
                codeHash: "h4", purpose: .invitation, userID: nil, email: "new@example.com", createdAt: TestTime.at(1),
                expiresAt: TestTime.at(100))
            try await codes.insert(invitation)
            #expect(try await codes.list(limit: 1) == [invitation])
            await #expect(throws: StorageError.self) { try await codes.insert(invitation) }
            // Deleting the person deletes their codes.
            try await storage.users.delete(id: "1")
            #expect(try await codes.find(codeHash: "h1") == nil)
            #expect(try await codes.find(codeHash: "h4") == invitation)
        }
    }
}
