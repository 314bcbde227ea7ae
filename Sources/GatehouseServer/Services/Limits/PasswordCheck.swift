import GatehouseCore
import Foundation
import Logging

/// The one way a password form checks a password: the login dialog, `/login`, `/device/signin` and
/// `/console/login` all come here, and nothing else calls ``PasswordHasher/verify(_:hash:)``.
///
/// In order:
/// 1. the attempt is reserved in ``LoginThrottle`` (atomically, before any hashing); over a budget, or too soon
///    for a slowed account → ``Outcome/throttled``;
/// 2. the account is looked up; an unknown email is verified against ``PasswordHasher/dummyHash()`` so it takes as
///    long as a wrong password, and both answer ``Outcome/refused`` (forms show one message for both);
/// 3. a correct password clears this client's failures on the account and marks its network as the owner's;
///    a person's password hashed at a lower cost than the server's (made in development mode, or before the cost
///    was raised) is hashed again at the server's cost and stored.
///
/// A person with no password (made without one in development mode) is refused as a wrong password is, after the
/// same one verification against the dummy hash; the development login page offers them in its picker.
struct PasswordCheck: Sendable {
    /// What the form should answer.
    enum Outcome<Account: Sendable>: Sendable {
        case accepted(Account)
        /// Wrong password, unknown email, or an empty or oversized field: one answer for all.
        case refused
        /// Too many attempts: answer 429 with `Retry-After`.
        case throttled(retryAfterSeconds: Int, retryMinutes: Int)
    }

    let services: GatehouseServices
    let throttle: LoginThrottle

    /// The one message for a wrong password and an unknown email alike.
    static let refusedMessage = "The email or password you entered is incorrect."

    static func throttledMessage(minutes: Int) -> String {
        "Too many failed attempts. Wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again."
    }

    /// People's accounts (dialog, `/login`, `/device/signin` share one budget, so no form sidesteps another's).
    static func people(_ services: GatehouseServices) -> PasswordCheck {
        PasswordCheck(services: services, throttle: LoginThrottle(services: services, scope: "login"))
    }

    /// Console administrators.
    static func admins(_ services: GatehouseServices) -> PasswordCheck {
        PasswordCheck(services: services, throttle: LoginThrottle(services: services, scope: "admin"))
    }

    /// Checks a person's email and password.
    /// An address whose account was deleted is refused as an unknown one; the journal says it was deleted (looked up
    /// for every refusal, so a deleted address takes no longer than a wrong password).
    func person(email: String, password: String, ip: String?) async throws -> Outcome<UserRecord> {
        let outcome = try await authenticate(
            email: email, password: password, ip: ip, find: services.storage.users.find(email:), hash: \.passwordHash)
        if case .accepted(let person) = outcome, services.passwords.needsRehash(person.passwordHash) {
            return .accepted(try await rehash(person, password: password))
        }
        var reason = "the email or password was wrong"
        if case .refused = outcome, let normalised = EmailAddress.normalised(email),
            let gone = try await services.storage.deletedAccounts?.find(
                key: DeletedAccountRecord.emailKey(normalised), now: services.clock.now())
        {
            reason = JournalExplanation.loginToDeletedAccount(at: gone.deletedAt)
            JournalNote.current?.explain(reason)
        }
        // The account the address names, if any: an operator watches for one person's failures.
        await announce(outcome, as: .person, refusedBecause: reason) {
            email.isEmpty ? nil : try? await services.storage.users.find(email: email)?.id
        }
        return outcome
    }

    /// Checks a console administrator's email and password.
    func admin(email: String, password: String, ip: String?) async throws -> Outcome<AdminAccountRecord> {
        let outcome = try await authenticate(
            email: email, password: password, ip: ip, find: services.storage.admins.find(email:), hash: \.passwordHash)
        await announce(outcome, as: .admin, refusedBecause: "the email or password was wrong") {
            email.isEmpty ? nil : try? await services.storage.admins.find(email: email)?.id
        }
        return outcome
    }

    /// A refused or throttled password is a `login.failed` at step `password` (``LoginEvents``); an accepted one
    /// is announced when its session starts.
    private func announce<Account>(
        _ outcome: Outcome<Account>, as account: LoginEvents.Account, refusedBecause reason: String,
        named: () async -> String?
    ) async {
        switch outcome {
        case .accepted: break
        case .refused:
            await services.loginEvents.failed(account, id: await named(), step: "password", reason: reason)
        case .throttled(let seconds, _):
            await services.loginEvents.failed(
                account, id: nil, step: "password",
                reason: "too many failed password attempts; retry after \(seconds) s")
        }
    }

    private func authenticate<Account: Sendable>(
        email rawEmail: String, password: String, ip: String?,
        find: (String) async throws -> Account?, hash: (Account) -> String
    ) async throws -> Outcome<Account> {
        // Trimmed as sign-up and reset trim it (the store compares case-insensitively).
        let email = String(rawEmail.trimmingCharacters(in: .whitespacesAndNewlines).prefix(320))
        guard !email.isEmpty, !password.isEmpty, password.utf8.count <= 1024 else { return .refused }
        if let wait = try await throttle.reserve(email: email, ip: ip) {
            return .throttled(retryAfterSeconds: wait, retryMinutes: LoginThrottle.minutes(wait))
        }
        let account = try await find(email)
        // Always one bcrypt verification, against the real hash or the dummy one.
        let stored = account.map(hash) ?? ""
        let hasPassword = !stored.isEmpty
        let matches = try await services.passwords.verify(
            password, hash: hasPassword ? stored : try await services.passwords.dummyHash())
        guard let account, hasPassword, matches else { return .refused }
        try await throttle.succeeded(email: email, ip: ip)
        return .accepted(account)
    }

    /// Stores `password`, which just verified, hashed at the server's cost. Not a password change: sessions and
    /// tokens stay, and `passwordChangedAt` does not move. A concurrent change of the record wins (the update is
    /// skipped when the stored hash is no longer the one that verified).
    private func rehash(_ person: UserRecord, password: String) async throws -> UserRecord {
        let stronger = try await services.passwords.hash(password)
        guard var current = try await services.storage.users.find(id: person.id),
            current.passwordHash == person.passwordHash
        else { return person }
        current.passwordHash = stronger
        try await services.storage.users.update(current)
        services.logger.info("password re-hashed at the server's cost", metadata: ["user": "\(person.id)"])
        return current
    }
}
