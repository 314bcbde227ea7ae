import Foundation
import Testing
import GatehouseKit
import GatehouseKitTestSupport

@Suite("InMemoryTokenCache and FileProfileCache")
struct MemoryAndProfileCacheTests {
    typealias F = SessionKitFixtures

    @Test("the in-memory cache keeps what it is given")
    func inMemory() {
        let cache = InMemoryTokenCache(accessToken: F.token())
        #expect(cache.accessToken?.userID == "100")
        #expect(cache.authenticationToken == nil)
        cache.authenticationToken = AuthenticationToken(tokenString: "h.p.s", nonce: "n")
        cache.accessToken = nil
        #expect(cache.accessToken == nil)
        #expect(cache.authenticationToken?.nonce == "n")
    }

    static func profile() -> Profile {
        Profile(
            userID: "100", firstName: "Alice", middleName: nil, lastName: "Anders", name: "Alice Anders",
            linkURL: URL(string: "https://example.test/alice"), refreshDate: Date(timeIntervalSince1970: 1_749_000_000),
            email: "alice@gatehouse.test", friendIDs: ["2", "3"], birthday: Date(timeIntervalSince1970: 639_878_400),
            ageRange: .init(min: 21, max: nil), hometown: .init(id: "1", name: "Town"), location: nil, gender: "female",
            isLimited: false, permissions: ["email"])
    }

    @Test("a profile reads back equal from a 0600 file next to the token cache")
    func profileRoundTrip() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileProfileCache(directory: directory)
        cache.profile = Self.profile()
        #expect(FileProfileCache(directory: directory).profile == Self.profile())
        #expect(cache.fileURL == directory.appendingPathComponent("profile-cache.json"))
        #expect(try F.mode(of: cache.fileURL) == 0o600)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: cache.fileURL)) as? [String: Any]
        #expect(json?.keys.sorted() == ["com.facebook.sdk.FBSDKProfile.currentProfile"])
        cache.profile = nil
        #expect(FileProfileCache(directory: directory).profile == nil)
    }

    @Test("a corrupt profile file reads as no profile")
    func corruptProfile() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileProfileCache(directory: directory)
        cache.profile = Self.profile()
        try Data([0xFF, 0x00, 0x7B]).write(to: cache.fileURL)
        #expect(cache.profile == nil)
        cache.profile = Self.profile()
        #expect(cache.profile?.email == "alice@gatehouse.test")
    }
}
