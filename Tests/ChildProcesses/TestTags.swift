import Testing

// The slow kinds of test. Suites of these kinds live in the GatehouseIntegrationTests target, which
// `scripts/test --fast` leaves out as a whole; the tags say which kind each suite is.
extension Tag {
    /// Starts child processes: `gatehouse serve`, the CLI, python clients, nginx.
    @Tag public static var process: Self
    /// Drives headless Chromium through chromedriver.
    @Tag public static var browser: Self
    /// Two server nodes on one PostgreSQL behind a proxy.
    @Tag public static var twoNode: Self
}
