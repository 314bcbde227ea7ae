import GatehouseCore
import Foundation

/// Dates as the pages show them, always in UTC so every node and every test renders the same text.
enum PageDates {
    /// `date` in `pattern` (DateFormatter syntax). A fresh formatter each time: `DateFormatter` is not
    /// `Sendable`, and pages render few dates.
    static func utc(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
