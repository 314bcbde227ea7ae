#if canImport(Security) && !os(Linux)
import Foundation
import Security

/// The token cache on Apple platforms, as Facebook's: a keychain generic password (service
/// `com.facebook.sdk.tokencache.{bundleID}`, account = key name, accessible after first unlock on
/// this device only) holding the tokens and an installation id, with the same id in UserDefaults.
///
/// UserDefaults is wiped on uninstall and the keychain is not, so after a reinstall the ids differ
/// and the stale token is deleted instead of logging the person back in.
public final class KeychainTokenCache: TokenCaching, @unchecked Sendable {
    /// The keychain service.
    public let service: String
    /// The keychain account and the UserDefaults key of the installation id.
    public let keyName: String
    private let defaults: UserDefaults
    private let lock = NSLock()

    public init(
        service: String = "com.facebook.sdk.tokencache.\(Bundle.main.bundleIdentifier ?? "")",
        keyName: String = FileTokenCache.defaultKeyName, userDefaults: UserDefaults = .standard
    ) {
        self.service = service
        self.keyName = keyName
        self.defaults = userDefaults
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

    /// Deletes both tokens under this key.
    public func clear() {
        lock.withLock { _ = SecItemDelete(baseQuery as CFDictionary) }
    }

    private var baseQuery: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: keyName]
    }

    private func entry() -> TokenCacheEntry? {
        lock.withLock {
            guard let data = readItem() else { return nil }
            guard let entry = try? JSONDecoder().decode(TokenCacheEntry.self, from: data),
                  entry.tokenUUID == defaults.string(forKey: keyName) else {
                // Corrupt, or left by an earlier installation.
                SecItemDelete(baseQuery as CFDictionary)
                return nil
            }
            return entry
        }
    }

    private func modify(_ change: (inout TokenCacheEntry) -> Void) {
        lock.withLock {
            let installID = defaults.string(forKey: keyName) ?? UUID().uuidString
            defaults.set(installID, forKey: keyName)
            var entry = readItem().flatMap { try? JSONDecoder().decode(TokenCacheEntry.self, from: $0) }
                .flatMap { $0.tokenUUID == installID ? $0 : nil } ?? TokenCacheEntry(tokenUUID: installID)
            change(&entry)
            if entry.isEmpty {
                SecItemDelete(baseQuery as CFDictionary)
            } else if let data = try? JSONEncoder().encode(entry) {
                writeItem(data)
            }
        }
    }

    private func readItem() -> Data? {
        var query = baseQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    private func writeItem(_ data: Data) {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(baseQuery as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let item = baseQuery.merging(attributes) { _, new in new }
            SecItemAdd(item as CFDictionary, nil)
        }
    }
}
#endif
