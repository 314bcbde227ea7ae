import GatehouseCore
import Foundation

/// Renders an outbox message as the RFC 5322 text a sendmail-compatible command reads: headers, then a
/// `multipart/alternative` body with the plain-text and HTML parts, each base64 in 76-character lines (so any
/// UTF-8 survives every relay, and no line can be mistaken for the end of the DATA phase).
enum MailMessageFormat {
    static func render(_ message: MailMessageRecord, from: String, date: Date, messageID: String, boundary: String)
        -> String
    {
        var lines = [
            "From: \(headerSafe(from))",
            "To: \(headerSafe(message.to))",
            "Subject: \(encodedWord(message.subject))",
            "Date: \(rfc5322Date(date))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "--\(boundary)",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "",
        ]
        lines += base64Lines(message.text)
        lines += ["--\(boundary)", "Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: base64", ""]
        lines += base64Lines(message.html)
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A header value with no line breaks (no header injection through an address or a name).
    static func headerSafe(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0.value >= 0x20 }.map(Character.init))
    }

    /// RFC 2047 `=?utf-8?B?…?=` when the text is not plain ASCII.
    static func encodedWord(_ text: String) -> String {
        let safe = headerSafe(text)
        if safe.unicodeScalars.allSatisfy({ $0.isASCII }) { return safe }
        return "=?utf-8?B?\(Data(safe.utf8).base64EncodedString())?="
    }

    static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        var out: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            out.append(String(encoded[index..<end]))
            index = end
        }
        return out
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// The bare address of `Name <address>` or `address` (the envelope sender).
    static func address(_ from: String) -> String {
        if let open = from.lastIndex(of: "<"), let close = from.lastIndex(of: ">"), open < close {
            return String(from[from.index(after: open)..<close])
        }
        return from.trimmingCharacters(in: .whitespaces)
    }
}
