import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit

/// Options every client command takes: which server, which app, which config and token cache.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Gatehouse server (default: the local server, http://127.0.0.1:8080, or the dev seed's).")
    var server: String?
    @OptionGroup var trustOptions: TrustOptions
    @Option(
        name: .customLong("app-id"),
        help: "The app to log in to (default: the demo app from the server's dev-seed.json).")
    var appID: String?
    @Option(help: "A JSON config with FacebookAppID, FacebookClientToken, GatehouseServerURL… (Info.plist key names).")
    var config: String?
    @Option(name: .customLong("cache-dir"), help: "Where the token cache lives (default: ~/.config/gatehouse).")
    var cacheDir: String?
    @Option(
        name: .customLong("data-dir"),
        help: "The local server's data folder, for its dev-seed.json (env GATEHOUSE_DATA_DIR; default ./.gatehouse).")
    var dataDir: String?
    @Option(
        name: .customLong("remote-cache-key"),
        help:
            "Keep the token in the server's remote token cache under this session key, from the app's backend (env GATEHOUSE_REMOTE_CACHE_KEY)."
    )
    var remoteCacheKey: String?
    @Option(
        name: .customLong("remote-cache-proof"),
        help: "The session proof that goes with --remote-cache-key (env GATEHOUSE_REMOTE_CACHE_PROOF).")
    var remoteCacheProof: String?
    @Flag(help: "Print one JSON document.") var json = false

    /// Settings from, in order of precedence: flags, the config file, the environment, the dev seed.
    func settings() throws -> Settings {
        let settings = Settings()
        let seedPath = ((dataDir ?? Environment.value("GATEHOUSE_DATA_DIR") ?? ".gatehouse") as NSString)
            .appendingPathComponent("dev-seed.json")
        if let data = FileManager.default.contents(atPath: seedPath),
            let seed = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            if let server = seed["server"] as? String, let url = URL(string: server) { settings.serverURL = url }
            if let app = seed["app"] as? [String: Any] {
                settings.appID = app["id"] as? String
                settings.clientToken = app["client_token"] as? String
                settings.displayName = app["name"] as? String
            }
        }
        settings.loadFromEnvironment()
        if let config {
            do { try settings.load(configFile: URL(fileURLWithPath: config)) } catch {
                throw CLIError("cannot read config \(config): \(error)")
            }
        }
        if let server {
            guard let url = URL(string: server), url.scheme?.hasPrefix("http") == true else {
                throw CLIError("--server must be an http(s) URL")
            }
            settings.serverURL = url
        }
        if let appID { settings.appID = appID }
        guard settings.appID != nil else {
            throw CLIError(
                "no app id: pass --app-id, set GATEHOUSE_APP_ID, or start `gatehouse serve` here so its dev-seed.json exists"
            )
        }
        return settings
    }

    /// The token cache folder.
    var cacheDirectory: URL? { cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) } }
}
