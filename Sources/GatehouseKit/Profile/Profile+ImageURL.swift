import Foundation
import GatehouseProtocol

extension Profile {
    /// The shape of a profile picture (Facebook's `FBSDKProfilePictureMode`).
    public enum PictureMode: UInt, Sendable, CaseIterable {
        case square, normal, album, small, large

        /// The `type` parameter of `/{id}/picture`.
        public var wireName: String {
            switch self {
            case .square: "square"
            case .normal: "normal"
            case .album: "album"
            case .small: "small"
            case .large: "large"
            }
        }
    }

    /// The URL of this person's picture: `{server}/{version}/{userID}/picture?access_token=…&height=…&type=…&width=…`,
    /// authorised with `AccessToken.current` or else the app's `appID|clientToken`. The server answers
    /// with a redirect to the image. Nil for a non-finite or negative size.
    public func imageURL(forMode mode: PictureMode, size: CGSize) -> URL? {
        Profile.imageURL(profileID: userID, mode: mode, size: size, environment: .current)
    }

    static func imageURL(profileID: String, mode: PictureMode, size: CGSize, environment: GatehouseKitEnvironment)
        -> URL?
    {
        guard size.width.isFinite, size.height.isFinite, size.width >= 0, size.height >= 0,
            let id = profileID.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))),
            !id.isEmpty
        else { return nil }
        let settings = environment.settings
        let tokenString =
            environment.currentAccessToken?.tokenString
            ?? settings.appID.flatMap { appID in settings.clientToken.map { "\(appID)|\($0)" } }
        var parameters: [(String, String)] = []
        if let tokenString { parameters.append(("access_token", tokenString)) }
        parameters += [
            ("height", String(Int(size.height.rounded()))), ("type", mode.wireName),
            ("width", String(Int(size.width.rounded()))),
        ]
        var base = settings.serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: "\(base)/\(settings.graphAPIVersion)/\(id)/picture?\(FormEncoding.encode(parameters))")
    }
}
