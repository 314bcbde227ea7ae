import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport

@Suite("ProfilePictureViewModel")
struct ProfilePictureViewModelTests {
    typealias F = SessionKitFixtures

    final class URLLog: @unchecked Sendable {
        private let lock = NSLock()
        private var urls: [URL?] = []
        func append(_ url: URL?) { lock.withLock { urls.append(url) } }
        var all: [URL?] { lock.withLock { urls } }
    }

    static func environment() -> GatehouseKitEnvironment {
        let settings = Settings()
        settings.serverURL = URL(string: "http://127.0.0.1:9999")!
        settings.clientToken = "ct"
        return F.environment(settings: settings)
    }

    @Test("\"me\" shows the placeholder until someone logs in, then their picture at size × scale")
    func meFollowsTheToken() {
        let environment = Self.environment()
        let model = ProfilePictureViewModel(size: CGSize(width: 50, height: 40), scale: 2, environment: environment)
        #expect(model.profileID == "me")
        #expect(model.pictureMode == .square)
        #expect(model.imageURL == nil)
        let log = URLLog()
        model.onImageURLChange = { log.append($0) }

        environment.setCurrentAccessToken(F.token(string: "EAA-1"))
        let expected = "http://127.0.0.1:9999/v27.0/me/picture?access_token=EAA-1&height=80&type=square&width=100"
        #expect(model.imageURL?.absoluteString == expected)
        model.pictureMode = .large
        model.scale = 3
        environment.setCurrentAccessToken(nil)
        #expect(
            log.all.map { $0?.absoluteString } == [
                expected,
                "http://127.0.0.1:9999/v27.0/me/picture?access_token=EAA-1&height=80&type=large&width=100",
                "http://127.0.0.1:9999/v27.0/me/picture?access_token=EAA-1&height=120&type=large&width=150",
                nil,
            ])
        model.size = CGSize(width: 50, height: 40)  // unchanged: no callback
        #expect(log.all.count == 4)
    }

    @Test("another person's picture works without a login, and a profile's own imageURL wins")
    func otherProfilesAndLimitedLogin() {
        let environment = Self.environment()
        let model = ProfilePictureViewModel(profileID: "42", pictureMode: .normal, environment: environment)
        #expect(
            model.imageURL?.absoluteString
                == "http://127.0.0.1:9999/v27.0/42/picture?access_token=1000000000001%7Cct&height=50&type=normal&width=50"
        )
        let picture = URL(string: "https://cdn.gatehouse.test/42.png")!
        Profile.setCurrent(
            Profile(
                userID: "42", firstName: nil, middleName: nil, lastName: nil, name: nil, linkURL: nil, refreshDate: nil,
                imageURL: picture, isLimited: true),
            in: environment)
        #expect(model.imageURL == picture)
        model.profileID = "me"
        #expect(model.imageURL == picture)
        model.profileID = "43"
        #expect(model.imageURL?.absoluteString.hasPrefix("http://127.0.0.1:9999/v27.0/43/picture?") == true)
    }
}
