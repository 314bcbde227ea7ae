import Foundation

/// What one key of a token cache holds: the tokens and the installation id they were written under.
struct TokenCacheEntry: Codable, Sendable {
    var tokenUUID: String
    var accessToken: AccessToken?
    var authenticationToken: AuthenticationToken?
}

/// The default token cache on Linux: a JSON file in the user's config directory, mode 0600 in a
/// 0700 folder, written atomically.
///
/// Tokens are kept under a key name (Facebook's `FBSDKAccessTokenInformationKey` by default), so one
/// file can hold several people's tokens under different keys (see ``UserSwitcher``). Each entry
/// carries the installation id from the install marker; when the marker is missing or differs (the
/// app was reinstalled), the entry is discarded and reads return nil.
public final class FileTokenCache: TokenCaching, @unchecked Sendable {
    /// Facebook's key for the cached access token.
    public static let defaultKeyName = "com.facebook.sdk.v4.FBSDKAccessTokenInformationKey"
    /// The cache file's name inside ``directory``.
    public static let fileName = "token-cache.json"
    /// The install marker's default name inside ``directory``.
    public static let installMarkerName = "install-id"

    /// The folder holding the cache file.
    public let directory: URL
    /// The key this cache reads and writes.
    public let keyName: String
    /// The reinstall marker.
    public let installMarkerURL: URL
    /// `directory/token-cache.json`.
    public var fileURL: URL { store.fileURL }

    private let store: JSONFileStore<TokenCacheEntry>
    private var marker: InstallMarker { InstallMarker(url: installMarkerURL) }

    /// - Parameters:
    ///   - directory: defaults to ``defaultDirectory(environment:)``.
    ///   - keyName: the key the tokens are stored under.
    ///   - installMarkerURL: defaults to `directory/install-id`; point it at the app's installation data
    ///     (which a reinstall wipes) to have a reinstall log the person out.
    public init(directory: URL? = nil, keyName: String = FileTokenCache.defaultKeyName, installMarkerURL: URL? = nil) {
        let directory = directory ?? Self.defaultDirectory()
        self.directory = directory
        self.keyName = keyName
        self.installMarkerURL = installMarkerURL ?? directory.appendingPathComponent(Self.installMarkerName)
        self.store = JSONFileStore(fileURL: directory.appendingPathComponent(Self.fileName))
    }

    /// `$XDG_CONFIG_HOME/gatehouse` when that is an absolute path (as the XDG spec requires), else
    /// `$HOME/.config/gatehouse`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent("gatehouse", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".config", isDirectory: true).appendingPathComponent("gatehouse", isDirectory: true)
    }

    public var accessToken: AccessToken? {
        get { entry()?.accessToken }
        set { modify { $0.accessToken = newValue } }
    }

    public var authenticationToken: AuthenticationToken? {
        get { entry()?.authenticationToken }
        set { modify { $0.authenticationToken = newValue } }
    }

    /// Deletes both tokens under this key.
    public func clear() {
        store.update { $0.removeValue(forKey: keyName) }
    }

    /// The keys in this cache's file that hold tokens from this installation, sorted.
    public var storedKeyNames: [String] {
        let current = marker.read()
        return store.read().filter { InstallMarker.matches(marker: current, tokenUUID: $0.value.tokenUUID) }.keys.sorted()
    }

    private func entry() -> TokenCacheEntry? {
        guard let entry = store.read()[keyName] else { return nil }
        if InstallMarker.matches(marker: marker.read(), tokenUUID: entry.tokenUUID) { return entry }
        // Written by an earlier installation: discard it, as Facebook does.
        store.update { entries in
            if let stale = entries[keyName], stale.tokenUUID == entry.tokenUUID { entries.removeValue(forKey: keyName) }
        }
        return nil
    }

    private func modify(_ change: (inout TokenCacheEntry) -> Void) {
        let installID = marker.readOrCreate()
        store.update { entries in
            var entry = entries[keyName].flatMap { $0.tokenUUID == installID ? $0 : nil } ?? TokenCacheEntry(tokenUUID: installID)
            change(&entry)
            if entry.accessToken == nil && entry.authenticationToken == nil {
                entries.removeValue(forKey: keyName)
            } else {
                entries[keyName] = entry
            }
        }
    }
}
