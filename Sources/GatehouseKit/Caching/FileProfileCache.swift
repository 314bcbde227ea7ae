import Foundation

/// Keeps `Profile.current` across launches in a JSON file next to the token cache (Facebook keeps it
/// in UserDefaults under `com.facebook.sdk.FBSDKProfile.currentProfile`). Mode 0600: a profile can
/// hold an email address and birthday.
public final class FileProfileCache: ProfileCaching, @unchecked Sendable {
    /// Facebook's key for the cached profile.
    public static let defaultKeyName = "com.facebook.sdk.FBSDKProfile.currentProfile"
    /// The cache file's name inside ``directory``.
    public static let fileName = "profile-cache.json"

    /// The folder holding the cache file.
    public let directory: URL
    /// The key the profile is stored under.
    public let keyName: String
    /// `directory/profile-cache.json`.
    public var fileURL: URL { store.fileURL }

    private let store: JSONFileStore<Profile>

    /// - Parameter directory: defaults to the token cache's ``FileTokenCache/defaultDirectory(environment:)``.
    public init(directory: URL? = nil, keyName: String = FileProfileCache.defaultKeyName) {
        let directory = directory ?? FileTokenCache.defaultDirectory()
        self.directory = directory
        self.keyName = keyName
        self.store = JSONFileStore(fileURL: directory.appendingPathComponent(Self.fileName))
    }

    /// The cached profile; nil when there is none or the file is unreadable.
    public var profile: Profile? {
        get { store.read()[keyName] }
        set { store.update { $0[keyName] = newValue } }
    }
}
