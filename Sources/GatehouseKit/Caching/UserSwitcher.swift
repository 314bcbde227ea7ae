import Foundation

/// Several people's tokens on one device, one cache key each, and switching between them: the
/// seeds' SwitchUserSample ("store each user's session data under a different key").
///
/// Every slot is a ``FileTokenCache`` in the same file with key `keyPrefix + userID`. The active
/// slot is the environment's token cache, so refreshes of `AccessToken.current` land in the right
/// person's slot. To add someone, call ``switchToNewUser()``, log in, then ``saveCurrentToken()``.
public final class UserSwitcher: Sendable {
    /// The default prefix of the per-person keys.
    public static let defaultKeyPrefix = FileTokenCache.defaultKeyName + "."
    /// The slot suffix that holds a login in progress, before its person is known.
    public static let newUserSlot = "new-user"

    public let directory: URL
    public let keyPrefix: String
    public let installMarkerURL: URL?
    public let environment: GatehouseKitEnvironment

    /// - Parameters:
    ///   - directory: defaults to ``FileTokenCache/defaultDirectory(environment:)``.
    ///   - installMarkerURL: passed to every slot's ``FileTokenCache``.
    public init(
        directory: URL? = nil, keyPrefix: String = UserSwitcher.defaultKeyPrefix, installMarkerURL: URL? = nil,
        environment: GatehouseKitEnvironment = .current
    ) {
        self.directory = directory ?? FileTokenCache.defaultDirectory()
        self.keyPrefix = keyPrefix
        self.installMarkerURL = installMarkerURL
        self.environment = environment
    }

    /// The key a person's tokens are kept under.
    public func keyName(forUserID userID: String) -> String { keyPrefix + userID }

    /// The cache holding one person's tokens.
    public func cache(forUserID userID: String) -> FileTokenCache {
        FileTokenCache(directory: directory, keyName: keyName(forUserID: userID), installMarkerURL: installMarkerURL)
    }

    /// The people with a token stored by this installation, sorted.
    public var storedUserIDs: [String] {
        cache(forUserID: Self.newUserSlot).storedKeyNames
            .filter { $0.hasPrefix(keyPrefix) }
            .map { String($0.dropFirst(keyPrefix.count)) }
            .filter { $0 != Self.newUserSlot }
    }

    /// The stored token of one person, without switching to them.
    public func storedToken(forUserID userID: String) -> AccessToken? { cache(forUserID: userID).accessToken }

    /// The person whose slot is the environment's token cache, if any.
    public var activeUserID: String? {
        guard let active = environment.tokenCache as? FileTokenCache, active.directory == directory,
            active.keyName.hasPrefix(keyPrefix)
        else { return nil }
        let userID = String(active.keyName.dropFirst(keyPrefix.count))
        return userID == Self.newUserSlot ? nil : userID
    }

    /// Makes `userID`'s slot the environment's token cache and their token `AccessToken.current`,
    /// posting `.AccessTokenDidChange` if the token changes. Returns the token (nil for an empty slot).
    @discardableResult
    public func switchTo(userID: String) -> AccessToken? {
        let slot = cache(forUserID: userID)
        environment.switchTokenCache(to: slot)
        return slot.accessToken
    }

    /// Switches to an empty slot so the next login does not overwrite anyone's token.
    public func switchToNewUser() {
        let slot = cache(forUserID: Self.newUserSlot)
        slot.clear()
        environment.switchTokenCache(to: slot)
    }

    /// Stores `AccessToken.current` under its person's key and makes that slot the active one.
    /// Returns the person's user id, or nil when there is no current token.
    @discardableResult
    public func saveCurrentToken() -> String? {
        guard let token = environment.currentAccessToken else { return nil }
        let slot = cache(forUserID: token.userID)
        slot.accessToken = token
        if let auth = environment.currentAuthenticationToken { slot.authenticationToken = auth }
        let wasNewUser = (environment.tokenCache as? FileTokenCache)?.keyName == keyName(forUserID: Self.newUserSlot)
        if activeUserID != token.userID { environment.switchTokenCache(to: slot) }
        if wasNewUser { cache(forUserID: Self.newUserSlot).clear() }
        return token.userID
    }

    /// Deletes a person's slot. If it is the active one, `AccessToken.current` becomes nil.
    public func remove(userID: String) {
        if activeUserID == userID {
            environment.setCurrentAccessToken(nil)
            environment.setCurrentAuthenticationToken(nil)
        }
        cache(forUserID: userID).clear()
    }
}
