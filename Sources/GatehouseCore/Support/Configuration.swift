import Foundation
import GatehouseProtocol

/// How the server runs. Development mode seeds demo data and enables emulator conveniences.
package enum ServerMode: String, Sendable, Codable, CaseIterable {
    case development
    case production
}

/// Everything a server instance needs to know about where and how it runs.
///
/// Built by ``ConfigurationLoader`` from defaults, a YAML file, `GATEHOUSE_*` environment variables and
/// command-line flags (in rising precedence). Emulator conveniences (password-free user picking, clock
/// control, the dev seed) must check ``isDevelopment`` before doing anything.
package struct GatehouseConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// Folder holding `gatehouse.sqlite` and `dev-seed.json`.
    package var dataDirectory: String
    /// The URL people and clients reach the server at; used in redirects, paging links and picture URLs.
    /// Defaults to `http://host:port` (or `https://` when serving TLS).
    package var publicURL: String?
    package var mode: ServerMode
    /// Largest request body accepted, after gzip decompression.
    package var maxBodyBytes: Int
    /// The Graph API version reported when a request names none.
    package var defaultGraphVersion: String
    /// The database; nil means the SQLite file `gatehouse.sqlite` in ``dataDirectory``.
    package var database: DatabaseLocation?
    /// ``database`` as the text the config file and flags use (`postgres://…` or `sqlite:PATH`).
    package var databaseURL: String? {
        switch database {
        case .postgres(let url): url
        case .sqlite(let path): "sqlite:" + path
        case nil: nil
        }
    }
    /// PEM certificate chain and private key: when both are set the server speaks HTTPS itself.
    package var tlsCertificatePath: String?
    package var tlsKeyPath: String?
    /// Peers (addresses or CIDR ranges) whose `X-Forwarded-For` / `X-Forwarded-Proto` headers are believed.
    package var trustedProxies: [String]
    /// Password-attempt, Graph API and token-endpoint limits.
    package var limits: LimitsConfiguration
    /// Serve Prometheus text at `/metrics`.
    package var metricsEnabled: Bool
    /// Serve `/bench/*` routes (a hello-world baseline and a bare id_token signer) for `scripts/bench`.
    package var benchRoutes: Bool
    /// swift-log level name: trace, debug, info, notice, warning, error, critical.
    package var logLevel: String
    /// Seconds a device must wait between device-login polls (`interval`; Facebook uses 5).
    package var devicePollInterval: Int = DeviceLogin.defaultInterval
    /// File holding the 32-byte key that seals signing private keys and the token cache's master key in storage.
    package var masterKeyFile: String?
    /// Bearer token that lets a non-loopback scraper read `/metrics` in production mode.
    package var metricsToken: String?
    /// Lets development mode listen beyond loopback (`--dev-allow-remote`); logged as a loud warning.
    package var devAllowRemote: Bool = false
    /// Lets a production server replace its whole state (`POST /admin/api/v1/state/reset`, `PUT /state`, the
    /// console's import): each wipes every person and app. Off unless the operator turns it on;
    /// development mode always allows it.
    package var allowStateReplace: Bool = false
    /// What a commit survives on SQLite: a power cut (the server's, always) or only a crash of the process (an
    /// in-process emulator's database, deleted when it stops). Not a flag or config key: only code sets it.
    package var commitDurability: CommitDurability = .powerLoss
    /// The request journal (`/console/activity`, `gatehouse logs`); nil follows the mode: on in development,
    /// off in production unless configured.
    package var journal: Bool?
    /// How many entries the in-memory journal keeps (a ring buffer per node).
    package var journalSize: Int = 1000
    /// Production mode: also keep journal entries in the `request_journal` table (shared by nodes).
    package var journalTable: Bool = false
    /// How long the table keeps entries.
    package var journalRetentionHours: Int = 168
    /// The most rows the table keeps; older ones are deleted first.
    package var journalMaxRows: Int = 100_000
    /// Who may create an account (issue 32); nil is the mode's default (open in development, closed in production).
    /// The console and admin API can override it at run time (``SignUpMode/effective(configured:stored:mode:)``).
    package var signUp: SignUpMode?
    /// How the mail outbox sends (issue 32): the sender, the service's name in messages, the sendmail command.
    package var mail = MailConfiguration()
    /// bcrypt's cost for passwords people and administrators choose; nil is the mode's (``PasswordCost``).
    package var passwordCost: Int?
    /// HTTP endpoints that receive events (issue 42, ``EventSinkConfiguration``); none by default.
    package var eventSinks: [EventSinkConfiguration] = []
    /// How long the `events` table keeps events, and the most rows it keeps.
    package var eventsRetentionDays: Int = 30
    package var eventsMaxRows: Int = 1_000_000
    /// What callbacks, webhooks and event sinks may reach and trust (`outbound.*`, ``OutboundConfiguration``).
    package var outbound = OutboundConfiguration()
    /// Traces over OTLP (issue 42, ``TracingConfiguration``); off unless an endpoint is configured.
    package var tracing = TracingConfiguration()

    package init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = ".gatehouse",
        publicURL: String? = nil, mode: ServerMode = .development, maxBodyBytes: Int = 1 << 20,
        defaultGraphVersion: String = GraphAPIVersion.current, database: DatabaseLocation? = nil,
        tlsCertificatePath: String? = nil,
        tlsKeyPath: String? = nil, trustedProxies: [String] = [], limits: LimitsConfiguration = LimitsConfiguration(),
        metricsEnabled: Bool = true, benchRoutes: Bool = false, logLevel: String = "info"
    ) {
        self.database = database
        self.logLevel = logLevel
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.mode = mode
        self.maxBodyBytes = maxBodyBytes
        self.defaultGraphVersion = defaultGraphVersion
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsKeyPath = tlsKeyPath
        self.trustedProxies = trustedProxies
        self.limits = limits
        self.metricsEnabled = metricsEnabled
        self.benchRoutes = benchRoutes
    }

    /// True in development mode: the emulator conveniences (test-user picking, clock control, dev seed) are on.
    package var isDevelopment: Bool { mode == .development }
    /// True in production mode: the console needs an admin login and unsafe settings refuse to start.
    package var isProduction: Bool { mode == .production }

    /// The bcrypt cost this server hashes passwords at: ``passwordCost`` if set, else the mode's default.
    package var effectivePasswordCost: Int { passwordCost ?? PasswordCost.default(for: mode) }

    /// Whether requests are journaled: ``journal`` if set, else only in development mode.
    package var journalEnabled: Bool { journal ?? isDevelopment }

    /// Whether the server terminates TLS itself.
    package var servesTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }

    /// Whether ``database`` is PostgreSQL (which implies production mode).
    package var usesPostgreSQL: Bool {
        if case .postgres = database { return true }
        return false
    }

    /// The base URL without a trailing slash.
    package var baseURL: String {
        let scheme = servesTLS ? "https" : "http"
        var url = publicURL ?? "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    package var databasePath: String { (dataDirectory as NSString).appendingPathComponent("gatehouse.sqlite") }
    /// ``database``, or the SQLite file at ``databasePath``.
    package var databaseLocation: DatabaseLocation { database ?? .sqlite(path: databasePath) }
    package var devSeedPath: String { (dataDirectory as NSString).appendingPathComponent("dev-seed.json") }

    /// Cookies get `Secure` everywhere but on loopback: over https, and on any other host too (plain
    /// http off loopback then cannot keep a session, which is the point: serve it over TLS or a proxy).
    package var usesSecureCookies: Bool {
        if baseURL.hasPrefix("https://") || servesTLS || isProduction { return true }
        guard let host = URLComponents(string: baseURL)?.host?.lowercased() else { return true }
        let loopback =
            host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "::1"
            || host == "[::1]"
        return !loopback
    }
}

/// Limits on password guessing and API use. A limit of 0 switches that limit off.
///
/// Counting is per fixed window (`…WindowSeconds`) in the shared ``RateLimitStore``, so several nodes on one
/// database enforce one budget.
package struct LimitsConfiguration: Sendable, Equatable {
    /// Failed password attempts per account (email) per window before the login form answers 429.
    package var loginAttemptsPerAccount: Int
    /// Failed password attempts per client IP per window before the login form answers 429.
    package var loginAttemptsPerIP: Int
    package var loginWindowSeconds: Int
    /// Password attempts per IPv6 /48 per login window, across all accounts (a /48 holds 65,536 /64s, each with
    /// its own ``loginAttemptsPerIP``). IPv4 clients are not affected.
    package var loginAttemptsPerIPv6Slash48: Int
    /// Password attempts on one account from all networks it has not logged in from, per
    /// ``loginAccountWindowSeconds``, before every further attempt must wait a doubling delay (never a lockout:
    /// networks the owner logged in from are exempt, and the delay is capped).
    package var loginAttemptsPerAccountAllNetworks: Int
    package var loginAccountWindowSeconds: Int
    /// The cap on that delay, in seconds.
    package var loginSlowdownMaxSeconds: Int
    /// Graph API calls per app per window (error code 4 beyond it).
    package var appCallsPerWindow: Int
    /// Graph API calls per app and person per window (error code 17 beyond it).
    package var userCallsPerWindow: Int
    package var apiWindowSeconds: Int
    /// `/oauth/access_token` calls per client IP per window (error code 613 beyond it): slows code guessing.
    package var tokenEndpointCallsPerIP: Int
    /// `POST /device/login` calls per client IP (IPv6: per /64) per device window (`(#613)` beyond it).
    package var deviceLoginsPerIP: Int
    /// `POST /device/login` calls per app per device window.
    package var deviceLoginsPerApp: Int
    package var deviceLoginWindowSeconds: Int
    /// Test users one app may hold (`(#2900) Too many test accounts` beyond it); Facebook's historical cap.
    package var testUsersPerApp = 2000
    /// Test users one app may create per test-user window (`(#4)` beyond it).
    package var testUserCreationsPerApp = 200
    /// Access tokens `GET /{app-id}/accounts/test-users` may mint for one app per test-user window (`(#4)` beyond it).
    package var testUserTokensPerApp = 5000
    package var testUserWindowSeconds = 3600
    /// The most bytes a batch entry's `relative_url` or `body` may hold once its `{result=…}` references are
    /// replaced (`(#100)` for that entry beyond it). Chained references otherwise grow exponentially.
    package var batchSubstitutionBytes = 128 * 1024
    /// The most bytes the replies of one batch may hold together (`(#100)` in place of each reply past it).
    package var batchAnswerBytes = 8 * 1024 * 1024
    /// Reset and sign-up mails one client network (IPv4 address or IPv6 /64) may ask for per hour, across
    /// addresses.
    package var accountMailPerNetwork = 30
    /// The same across one IPv6 /48 (65,536 /64s), so a site cannot ask in the name of every /64 it holds.
    package var accountMailPerIPv6Slash48 = 100
    /// Account mails (reset links, confirmations, "someone tried to sign up") one address may be sent per hour at
    /// the request of networks it never logged in from. Requests from the account's own networks are not capped
    /// here, so a stranger cannot use this cap to keep the owner from resetting their password.
    package var accountMailPerRecipient = 10
    /// Wrong login codes per account per day before each further code is checked only after a doubling delay
    /// (capped at an hour); the owner is mailed the first time the budget is passed.
    package var loginCodeAttemptsPerAccount = 10

    package init(
        loginAttemptsPerAccount: Int = 10, loginAttemptsPerIP: Int = 50, loginWindowSeconds: Int = 900,
        loginAttemptsPerIPv6Slash48: Int = 200, loginAttemptsPerAccountAllNetworks: Int = 20,
        loginAccountWindowSeconds: Int = 86_400, loginSlowdownMaxSeconds: Int = 600,
        appCallsPerWindow: Int = 0, userCallsPerWindow: Int = 0, apiWindowSeconds: Int = 3600,
        tokenEndpointCallsPerIP: Int = 0, deviceLoginsPerIP: Int = 60, deviceLoginsPerApp: Int = 6000,
        deviceLoginWindowSeconds: Int = 3600
    ) {
        self.deviceLoginsPerIP = deviceLoginsPerIP
        self.deviceLoginsPerApp = deviceLoginsPerApp
        self.deviceLoginWindowSeconds = deviceLoginWindowSeconds
        self.loginAttemptsPerAccount = loginAttemptsPerAccount
        self.loginAttemptsPerIP = loginAttemptsPerIP
        self.loginWindowSeconds = loginWindowSeconds
        self.loginAttemptsPerIPv6Slash48 = loginAttemptsPerIPv6Slash48
        self.loginAttemptsPerAccountAllNetworks = loginAttemptsPerAccountAllNetworks
        self.loginAccountWindowSeconds = loginAccountWindowSeconds
        self.loginSlowdownMaxSeconds = loginSlowdownMaxSeconds
        self.appCallsPerWindow = appCallsPerWindow
        self.userCallsPerWindow = userCallsPerWindow
        self.apiWindowSeconds = apiWindowSeconds
        self.tokenEndpointCallsPerIP = tokenEndpointCallsPerIP
    }
}

/// A configuration problem the person can fix; the message names the setting and its source.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
