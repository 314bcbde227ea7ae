import Testing

// The slow kinds of test, so `scripts/test --fast` can leave them out (`swift test --skip tag:…`).
extension Tag {
    /// Starts child processes: `gatehouse serve`, the CLI, python clients, nginx.
    @Tag public static var process: Self
    /// Drives headless Chromium through chromedriver.
    @Tag public static var browser: Self
    /// Two server nodes on one PostgreSQL behind a proxy.
    @Tag public static var twoNode: Self
}
