import GatehouseCore
import Foundation
#if canImport(Subprocess)
internal import Subprocess
#if canImport(System)
internal import System
#else
internal import SystemPackage
#endif
#endif

/// Sends one message to someone's mailbox. The outbox calls it from its worker, never from a request.
package protocol MailTransport: Sendable {
    /// Hands `message` (rendered as RFC 5322 text) to the mail system; throws ``MailRefused`` when it did not take it.
    func send(_ message: MailMessageRecord, rendered: String) async throws
}

/// Why a delivery failed, as the outbox records it (`lastError`) and the journal explains it.
package struct MailRefused: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Production's transport: a sendmail-compatible command (`mail.sendmail_command`: msmtp, exim4, Postfix's
/// sendmail, …) run without a shell, the message on its standard input.
///
/// Why a command rather than SMTP from Swift: no maintained Swift SMTP client is available, and the mail system
/// behind the command already does what a hand-written client would have to get right (STARTTLS with
/// certificate checks, authentication, MX lookup, its own queue). Gatehouse keeps the part it owns: every
/// message is a row first, and a failed command (non-zero exit, or one that runs past ``timeout``) is retried
/// with back-off by ``MailOutbox``. The command runs through swift-subprocess, not Foundation's `Process`
/// (whose `run()` can trap on Linux with Swift 6.3; see docs/TESTING.md).
package struct SendmailTransport: MailTransport {
    /// The program and its arguments, e.g. `["/usr/bin/msmtp", "-t"]`.
    package let arguments: [String]
    /// The envelope sender (`-f`), taken from the `From:` address.
    package let envelopeFrom: String
    /// How long one command may run before the attempt counts as failed (and the command is stopped).
    package let timeout: Duration

    package init(arguments: [String], envelopeFrom: String, timeout: Duration = .seconds(60)) {
        self.arguments = arguments
        self.envelopeFrom = envelopeFrom
        self.timeout = timeout
    }

    package func send(_ message: MailMessageRecord, rendered: String) async throws {
        guard let program = arguments.first else { throw MailRefused("no sendmail command is configured") }
        #if canImport(Subprocess)
        // `-f` sets the envelope sender; msmtp, exim4 and sendmail all read it. `-t` (recipients from the headers)
        // belongs in the configured command.
        let commandArguments = Array(arguments.dropFirst()) + ["-f", envelopeFrom]
        let timeout = self.timeout
        let outcome: (status: Int32, error: String)? = try await withThrowingTaskGroup(
            of: (status: Int32, error: String)?.self
        ) { group in
            group.addTask {
                let result = try await Subprocess.run(
                    .path(FilePath(program)), arguments: Arguments(commandArguments), input: .string(rendered),
                    output: .discarded,
                    error: .string(limit: 4096))
                let status: Int32
                switch result.terminationStatus {
                case .exited(let code): status = Int32(code)
                case .signaled(let signal): status = 128 + Int32(signal)
                }
                return (status, result.standardError)
            }
            group.addTask {
                try await Task.sleep(for: timeout); return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else { throw MailRefused("\(program) did not finish within \(timeout)") }
        guard outcome.status == 0 else {
            let detail = outcome.error.split(whereSeparator: \.isNewline).first.map { String($0.prefix(200)) } ?? ""
            throw MailRefused(
                "\(program) exited with status \(outcome.status)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
        #else
        throw MailRefused("sending mail through a command is not supported on this platform")
        #endif
    }
}
