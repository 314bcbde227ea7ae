import Foundation

/// A person-readable "Chrome on macOS" from a User-Agent header, for the sessions list in the settings.
package enum DeviceDescription {
    package static func describe(userAgent: String?) -> String {
        guard let ua = userAgent, !ua.isEmpty else { return "Unknown browser" }
        let browser: String
        // Order matters: Edge and Opera say "Chrome", Chrome says "Safari".
        if ua.contains("Edg/") {
            browser = "Edge"
        } else if ua.contains("OPR/") {
            browser = "Opera"
        } else if ua.contains("Firefox/") {
            browser = "Firefox"
        } else if ua.contains("HeadlessChrome/") {
            browser = "Headless Chrome"
        } else if ua.contains("Chrome/") || ua.contains("Chromium/") {
            browser = "Chrome"
        } else if ua.contains("Safari/") {
            browser = "Safari"
        } else if ua.hasPrefix("curl/") {
            browser = "curl"
        } else {
            browser = String(ua.prefix { $0 != "/" && $0 != " " }.prefix(40))
        }
        let system: String?
        if ua.contains("iPhone") || ua.contains("iPad") {
            system = "iOS"
        } else if ua.contains("Android") {
            system = "Android"
        } else if ua.contains("Windows") {
            system = "Windows"
        } else if ua.contains("Mac OS X") || ua.contains("Macintosh") {
            system = "macOS"
        } else if ua.contains("CrOS") {
            system = "ChromeOS"
        } else if ua.contains("Linux") {
            system = "Linux"
        } else {
            system = nil
        }
        return system.map { "\(browser) on \($0)" } ?? browser
    }
}
