import Foundation

/// Who may create an account with the login page's "Create new account" (issue 32).
package enum SignUpMode: String, Sendable, Codable, CaseIterable {
    /// Anyone (the default in development).
    case open
    /// Only someone holding an invitation sent to their address.
    case invitation
    /// Nobody (the default in production): accounts come from the console, CLI, admin API or scenario files.
    case closed

    /// The name of the emulator setting that overrides the configured mode at run time (console, admin API).
    package static let settingName = "signup_mode"

    /// The mode in force: the run-time setting, else the configuration, else the server mode's default.
    package static func effective(configured: SignUpMode?, stored: String?, mode: ServerMode) -> SignUpMode {
        if let stored, let value = SignUpMode(rawValue: stored) { return value }
        return configured ?? (mode == .development ? .open : .closed)
    }
}

/// How the mail outbox sends and signs its messages.
package struct MailConfiguration: Sendable, Equatable {
    /// The `From:` address.
    package var from: String = "Gatehouse <no-reply@gatehouse.invalid>"
    /// The service's name in messages ("Gatehouse" unless set).
    package var serviceName: String = "Gatehouse"
    /// A sendmail-compatible command (`/usr/bin/msmtp -t`, `/usr/sbin/sendmail -t -i`) that reads one RFC 5322
    /// message on standard input; nil keeps messages in the outbox only (development's `/console/mail`).
    package var sendmailCommand: String?
    /// A directory of template overrides (`confirm_email.txt.mustache`, `reset_password.html.mustache`, …).
    package var templatesDirectory: String?
    /// Days a message, and a used or expired account code, is kept; then it is deleted (a queued message
    /// still being retried is kept until it is sent or given up).
    package var retentionDays: Int = 30

    package init() {}

    /// The command split into its program and arguments (on spaces; no shell is involved).
    package var sendmailArguments: [String]? {
        guard let sendmailCommand else { return nil }
        let parts = sendmailCommand.split(separator: " ").map(String.init)
        return parts.isEmpty ? nil : parts
    }
}
