import GatehouseCore
import Foundation

/// Sends one message to someone's mailbox. The outbox calls it from its worker, never from a request.
public protocol MailTransport: Sendable {
    /// Hands `message` (rendered as RFC 5322 text) to the mail system; throws ``MailRefused`` when it did not take it.
    func send(_ message: MailMessageRecord, rendered: String) async throws
}

/// Why a delivery failed, as the outbox records it (`lastError`) and the journal explains it.
public struct MailRefused: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Production's transport: a sendmail-compatible command (`mail.sendmail_command`: msmtp, exim4, Postfix's
/// sendmail, …) run without a shell, the message on its standard input.
///
/// Why a command rather than SMTP from Swift: no maintained Swift SMTP client is available, and the mail system
/// behind the command already does what a hand-written client would have to get right (STARTTLS with
/// certificate checks, authentication, MX lookup, its own queue). Gatehouse keeps the part it owns: every
/// message is a row first, and a failed command (non-zero exit, or one that hangs past ``timeout``) is retried
/// with back-off by ``MailOutbox``.
public struct SendmailTransport: MailTransport {
    /// The program and its arguments, e.g. `["/usr/bin/msmtp", "-t"]`.
    public let arguments: [String]
    /// The envelope sender (`-f`), taken from the `From:` address.
    public let envelopeFrom: String
    /// How long one command may run before it is killed and the attempt counts as failed.
    public let timeout: Duration

    public init(arguments: [String], envelopeFrom: String, timeout: Duration = .seconds(60)) {
        self.arguments = arguments
        self.envelopeFrom = envelopeFrom
        self.timeout = timeout
    }

    public func send(_ message: MailMessageRecord, rendered: String) async throws {
        guard let program = arguments.first else { throw MailRefused("no sendmail command is configured") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        // `-f` sets the envelope sender; msmtp, exim4 and sendmail all read it. `-t` (recipients from the
        // headers) belongs in the configured command.
        process.arguments = Array(arguments.dropFirst()) + ["-f", envelopeFrom]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let finished = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished.continuation.yield($0.terminationStatus); finished.continuation.finish() }
        do {
            try process.run()
        } catch {
            throw MailRefused("\(program) could not be started: \(error.localizedDescription)")
        }
        // Large messages must not fill the pipe while nobody reads: write on a detached thread's worth of time.
        let data = Data(rendered.utf8)
        let writer = Task.detached {
            try? input.fileHandleForWriting.write(contentsOf: data)
            try? input.fileHandleForWriting.close()
        }
        let status: Int32? = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { for await code in finished.stream { return code }; return nil }
            group.addTask { try? await Task.sleep(for: timeout); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await writer.value
        guard let status else {
            process.terminate()
            throw MailRefused("\(program) did not finish within \(timeout)")
        }
        guard status == 0 else {
            let detail = String(decoding: errors.fileHandleForReading.availableData.prefix(300), as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            throw MailRefused("\(program) exited with status \(status)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
    }
}
