// GATEHOUSE_APPLE_STUBS: the Linux type-check against a stubbed Security module (AppleLayerTypeCheckTests).
#if canImport(Security) && (!os(Linux) || GATEHOUSE_APPLE_STUBS)
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
        get { lock.withLock { item.entry()?.accessToken } }
        set { lock.withLock { item.modify { $0.accessToken = newValue } } }
    }

    public var authenticationToken: AuthenticationToken? {
        get { lock.withLock { item.entry()?.authenticationToken } }
        set { lock.withLock { item.modify { $0.authenticationToken = newValue } } }
    }

    public var tokenInformation: [String: String]? {
        get { lock.withLock { item.entry()?.tokenInformation } }
        set { lock.withLock { item.modify { $0.tokenInformation = newValue } } }
    }

    public var pendingLogin: PendingLoginState? {
        get { lock.withLock { item.entry()?.pendingLogin } }
        set { lock.withLock { item.modify { $0.pendingLogin = newValue } } }
    }

    /// Deletes both tokens under this key.
    public func clear() {
        lock.withLock { deleteItem() }
    }

    /// The reinstall and corruption rules (``InstallBoundTokenItem``, tested on Linux) over this Keychain item and the
    /// UserDefaults id. Used under `lock`.
    private var item: InstallBoundTokenItem {
        InstallBoundTokenItem(
            read: readItem, write: writeItem, delete: deleteItem,
            installID: { [defaults, keyName] in defaults.string(forKey: keyName) },
            setInstallID: { [defaults, keyName] in defaults.set($0, forKey: keyName) })
    }

    private var baseQuery: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: keyName,
        ]
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

    private func deleteItem() {
        SecItemDelete(baseQuery as CFDictionary)
    }
}
#endif
