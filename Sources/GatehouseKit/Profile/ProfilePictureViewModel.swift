import Foundation

/// What a profile picture view shows, without UIKit (Facebook's `FBProfilePictureView` logic): the
/// picture URL for ``profileID`` and ``pictureMode`` at ``size`` × ``scale`` pixels, recomputed when
/// any of them, the access token or the profile changes. Nil means "show the placeholder".
public final class ProfilePictureViewModel: @unchecked Sendable {
    public let environment: GatehouseKitEnvironment
    private let lock = NSLock()
    private var _profileID: String?
    private var _pictureMode: Profile.PictureMode
    private var _size: CGSize
    private var _scale: CGFloat
    private var _imageURL: URL?
    private var _onImageURLChange: (@Sendable (URL?) -> Void)?
    private var observers: [any NSObjectProtocol] = []

    /// - Parameters:
    ///   - profileID: whose picture; `"me"` is the current person.
    ///   - size: the view's size in points; ``scale`` turns it into pixels.
    public init(
        profileID: String? = "me", pictureMode: Profile.PictureMode = .square,
        size: CGSize = CGSize(width: 50, height: 50),
        scale: CGFloat = 1, environment: GatehouseKitEnvironment = .current
    ) {
        self.environment = environment
        _profileID = profileID
        _pictureMode = pictureMode
        _size = size
        _scale = scale
        _imageURL = Self.imageURL(
            profileID: profileID, mode: pictureMode, size: size, scale: scale, environment: environment)
        for name in [Notification.Name.AccessTokenDidChange, .ProfileDidChange] {
            observers.append(environment.observe(name) { [weak self] _ in self?.refresh() })
        }
    }

    deinit { for observer in observers { environment.notificationCenter.removeObserver(observer) } }

    /// Whose picture: a user id, `"me"`, or nil for the placeholder (no URL), as the seeds' `profileID = nil`.
    public var profileID: String? {
        get { lock.withLock { _profileID } }
        set { lock.withLock { _profileID = newValue }; refresh() }
    }

    public var pictureMode: Profile.PictureMode {
        get { lock.withLock { _pictureMode } }
        set { lock.withLock { _pictureMode = newValue }; refresh() }
    }

    public var size: CGSize {
        get { lock.withLock { _size } }
        set { lock.withLock { _size = newValue }; refresh() }
    }

    /// Pixels per point (the screen's scale).
    public var scale: CGFloat {
        get { lock.withLock { _scale } }
        set { lock.withLock { _scale = newValue }; refresh() }
    }

    /// The picture to load, or nil for the placeholder.
    public var imageURL: URL? { lock.withLock { _imageURL } }

    /// Called with the new URL whenever ``imageURL`` changes.
    public var onImageURLChange: (@Sendable (URL?) -> Void)? {
        get { lock.withLock { _onImageURLChange } }
        set { lock.withLock { _onImageURLChange = newValue } }
    }

    /// Recomputes ``imageURL`` and reports a change.
    public func refresh() {
        let (url, callback): (URL?, (@Sendable (URL?) -> Void)?) = lock.withLock {
            let url = Self.imageURL(
                profileID: _profileID, mode: _pictureMode, size: _size, scale: _scale, environment: environment)
            guard url != _imageURL else { return (nil, nil) }
            _imageURL = url
            return (url, _onImageURLChange)
        }
        callback?(url)
    }

    /// The picture URL: the current profile's own `imageURL` when it has one (a Limited Login), else
    /// the Graph picture at size × scale; nil for `"me"` with nobody logged in.
    static func imageURL(
        profileID: String?, mode: Profile.PictureMode, size: CGSize, scale: CGFloat,
        environment: GatehouseKitEnvironment
    ) -> URL? {
        guard let profileID else { return nil }
        let profile = environment.currentProfile
        if let profile, profileID == "me" || profileID == profile.userID, let url = profile.imageURL { return url }
        if profileID == "me" && environment.currentAccessToken == nil { return nil }
        let pixels = CGSize(width: size.width * scale, height: size.height * scale)
        return Profile.imageURL(profileID: profileID, mode: mode, size: pixels, environment: environment)
    }
}
