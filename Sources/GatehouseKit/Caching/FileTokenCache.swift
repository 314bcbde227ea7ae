import Foundation

/// What one key of a token cache holds: the tokens and the installation id they were written under.
struct TokenCacheEntry: Codable, Sendable {
    var tokenUUID: String
    var accessToken: AccessToken?
    var authenticationToken: AuthenticationToken?
    var tokenInformation: [String: String]?
    var pendingLogin: PendingLoginState?

    init(tokenUUID: String) { self.tokenUUID = tokenUUID }

    /// Nothing worth keeping: the entry is deleted.
    var isEmpty: Bool {
        accessToken == nil && authenticationToken == nil && tokenInformation == nil && pendingLogin == nil
    }
}

/// The default token cache on Linux: a JSON file in the user's config directory, mode 0600 in a
/// 0700 folder, written atomically.
///
/// Tokens are kept under a key name (Facebook's `FBSDKAccessTokenInformationKey` by default), so one
/// file can hold several people's tokens under different keys (see ``UserSwitcher``). Each entry
/// carries the installation id from the install marker; when the marker is missing or differs (the
/// app was reinstalled), the entry is discarded and reads return nil.
public final class FileTokenCache: TokenCaching, @unchecked Sendable {
    /// The seeds' key for the cached token (`FBSessionTokenCachingStrategy`'s default).
    public static let defaultKeyName = "FBAccessTokenInformationKey"
    /// The key Facebook's SDK 4+ and earlier GatehouseKit versions used; read once and moved to the new key.
    public static let v4KeyName = "com.facebook.sdk.v4.FBSDKAccessTokenInformationKey"
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

    /// Where `initializeSDK()` keeps tokens on Linux: `$XDG_DATA_HOME/gatehouse` when that is an absolute
    /// path, else `$HOME/.local/share/gatehouse`. Tokens are data, not configuration, in XDG terms.
    public static func defaultDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL
    {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("gatehouse", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local", isDirectory: true)
            .appendingPathComponent("share", isDirectory: true).appendingPathComponent("gatehouse", isDirectory: true)
    }

    /// `$XDG_CONFIG_HOME/gatehouse` when that is an absolute path (as the XDG spec requires), else
    /// `$HOME/.config/gatehouse`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent(
                "gatehouse", isDirectory: true)
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

    public var tokenInformation: [String: String]? {
        get { entry()?.tokenInformation }
        set { modify { $0.tokenInformation = newValue } }
    }

    public var pendingLogin: PendingLoginState? {
        get { entry()?.pendingLogin }
        set { modify { $0.pendingLogin = newValue } }
    }

    /// The v4 key this cache's key replaces (`v4KeyName` + the same suffix), or nil for other keys.
    var legacyKeyName: String? {
        guard keyName.hasPrefix(Self.defaultKeyName) else { return nil }
        return Self.v4KeyName + keyName.dropFirst(Self.defaultKeyName.count)
    }

    /// Deletes both tokens under this key.
    public func clear() {
        store.update { $0.removeValue(forKey: keyName) }
    }

    /// The keys in this cache's file that hold tokens from this installation, sorted.
    public var storedKeyNames: [String] {
        let current = marker.read()
        return store.read().filter { InstallMarker.matches(marker: current, tokenUUID: $0.value.tokenUUID) }.keys
            .sorted()
    }

    private func entry() -> TokenCacheEntry? {
        migrateLegacyEntry()
        guard let entry = store.read()[keyName] else { return nil }
        if InstallMarker.matches(marker: marker.read(), tokenUUID: entry.tokenUUID) { return entry }
        // Written by an earlier installation: discard it, as Facebook does.
        store.update { entries in
            if let stale = entries[keyName], stale.tokenUUID == entry.tokenUUID { entries.removeValue(forKey: keyName) }
        }
        return nil
    }

    /// Moves an entry under the v4 key to this cache's key, once: afterwards the v4 key is gone.
    private func migrateLegacyEntry() {
        // Read first: most reads find nothing to move and must not rewrite the file.
        guard let legacy = legacyKeyName, store.read()[legacy] != nil else { return }
        store.update { entries in
            guard let old = entries.removeValue(forKey: legacy) else { return }
            if entries[keyName] == nil { entries[keyName] = old }
        }
    }

    private func modify(_ change: (inout TokenCacheEntry) -> Void) {
        migrateLegacyEntry()
        let installID = marker.readOrCreate()
        store.update { entries in
            var entry =
                entries[keyName].flatMap { $0.tokenUUID == installID ? $0 : nil }
                ?? TokenCacheEntry(tokenUUID: installID)
            change(&entry)
            if entry.isEmpty {
                entries.removeValue(forKey: keyName)
            } else {
                entries[keyName] = entry
            }
        }
    }
}
