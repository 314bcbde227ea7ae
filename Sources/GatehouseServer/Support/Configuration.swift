import Foundation

/// How the server runs. Development mode seeds demo data and enables emulator conveniences.
public enum ServerMode: String, Sendable, Codable, CaseIterable {
    case development
    case production
}

/// Everything a server instance needs to know about where and how it runs.
public struct GatehouseConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Folder holding `gatehouse.sqlite` and `dev-seed.json`.
    public var dataDirectory: String
    /// The URL people and clients reach the server at; used in redirects, paging links and picture URLs.
    /// Defaults to `http://host:port`.
    public var publicURL: String?
    public var mode: ServerMode
    /// Largest request body accepted, after gzip decompression.
    public var maxBodyBytes: Int
    /// The Graph API version reported when a request names none.
    public var defaultGraphVersion: String
    /// Seconds a device must wait between device-login polls (`interval`; Facebook uses 5).
    public var devicePollInterval: Int = 5

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = ".gatehouse",
        publicURL: String? = nil, mode: ServerMode = .development, maxBodyBytes: Int = 1 << 20,
        defaultGraphVersion: String = "v21.0"
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.mode = mode
        self.maxBodyBytes = maxBodyBytes
        self.defaultGraphVersion = defaultGraphVersion
    }

    /// The base URL without a trailing slash.
    public var baseURL: String {
        var url = publicURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    public var databasePath: String { (dataDirectory as NSString).appendingPathComponent("gatehouse.sqlite") }
    public var devSeedPath: String { (dataDirectory as NSString).appendingPathComponent("dev-seed.json") }

    /// Cookies get `Secure` everywhere but on loopback: over https, and on any other host too (plain
    /// http off loopback then cannot keep a session, which is the point: serve it over TLS or a proxy).
    public var usesSecureCookies: Bool {
        if baseURL.hasPrefix("https://") { return true }
        guard let host = URLComponents(string: baseURL)?.host?.lowercased() else { return true }
        let loopback = host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        return !loopback
    }
}
