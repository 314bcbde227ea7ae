import Foundation
@testable import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Item 2 of the porting issue: tokens are cached by default, under the seeds' key, with the v4 key
/// migrated once, extra data beside the token, and the login type on the token.
@Suite("Token cache: the default cache, key migration, extra data, login type")
struct DefaultTokenCacheTests {
    typealias F = SessionKitFixtures

    @Test("Linux's default cache is a FileTokenCache under XDG_DATA_HOME, else ~/.local/share")
    func defaultCacheLocation() throws {
        #expect(
            FileTokenCache.defaultDataDirectory(environment: ["XDG_DATA_HOME": "/srv/data", "HOME": "/home/a"]).path
                == "/srv/data/gatehouse")
        #expect(
            FileTokenCache.defaultDataDirectory(environment: ["HOME": "/home/a"]).path
                == "/home/a/.local/share/gatehouse")
        #expect(
            FileTokenCache.defaultDataDirectory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/a"]).path
                == "/home/a/.local/share/gatehouse")
        #if !canImport(Security) || os(Linux)
        let root = F.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = GatehouseKitEnvironment()
        environment.installDefaultTokenCache(processEnvironment: ["XDG_DATA_HOME": root.path])
        let cache = try #require(environment.tokenCache as? FileTokenCache)
        #expect(cache.directory.path == root.appendingPathComponent("gatehouse").path)
        #expect(cache.keyName == "FBAccessTokenInformationKey")
        environment.setCurrentAccessToken(F.token())
        #expect(FileTokenCache(directory: cache.directory).accessToken == F.token())
        #endif
    }

    @Test("a cache the app set is kept, and the app may still replace the default")
    func customCacheWins() {
        let custom = InMemoryTokenCache()
        let environment = GatehouseKitEnvironment(tokenCache: custom)
        environment.installDefaultTokenCache(processEnvironment: ["XDG_DATA_HOME": "/nonexistent-gatehouse"])
        #expect(environment.tokenCache === custom)
        let other = InMemoryTokenCache(accessToken: F.token())
        environment.tokenCache = other
        #expect(environment.currentAccessToken == F.token())
    }

    @Test("a token under the v4 key is read once and moved to the seeds' key")
    func v4KeyMigration() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        FileTokenCache(directory: directory, keyName: FileTokenCache.v4KeyName).accessToken = F.token()
        let cache = FileTokenCache(directory: directory)
        #expect(cache.accessToken == F.token())
        #expect(cache.storedKeyNames == ["FBAccessTokenInformationKey"])
        #expect(FileTokenCache(directory: directory, keyName: FileTokenCache.v4KeyName).accessToken == nil)
        // A per-user key (UserSwitcher's `FBAccessTokenInformationKey.2`) migrates from `…v4….2` the same way.
        FileTokenCache(directory: directory, keyName: FileTokenCache.v4KeyName + ".2").accessToken = F.token(user: "2")
        #expect(
            FileTokenCache(directory: directory, keyName: "FBAccessTokenInformationKey.2").accessToken?.userID == "2")
    }

    @Test("extra data is cached beside the token (the seeds' cacheTokenInformation:) and survives a relaunch")
    func tokenInformationHook() {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileTokenCache(directory: directory)
        cache.accessToken = F.token()
        cache.tokenInformation = ["appUserID": "u-77", "serverSession": "s1"]
        let relaunched = FileTokenCache(directory: directory)
        #expect(relaunched.tokenInformation == ["appUserID": "u-77", "serverSession": "s1"])
        #expect(relaunched.accessToken == F.token())
        relaunched.accessToken = nil
        #expect(FileTokenCache(directory: directory).tokenInformation == ["appUserID": "u-77", "serverSession": "s1"])
        relaunched.tokenInformation = nil
        #expect(!FileManager.default.fileExists(atPath: relaunched.fileURL.path))
        // A cache written before the hook existed keeps nothing, and still conforms.
        let legacy = LoginTestTokenCache()
        legacy.tokenInformation = ["k": "v"]
        #expect(legacy.tokenInformation == nil)
    }

    @Test("the token carries its login type through the cache; older caches read as .none")
    func loginTypeRoundTrip() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = F.token().with(loginType: .facebookViaSafari)
        #expect(token.loginType == .facebookViaSafari)
        #expect(token != F.token())
        FileTokenCache(directory: directory).accessToken = token
        #expect(FileTokenCache(directory: directory).accessToken?.loginType == .facebookViaSafari)
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(F.token())) as! [String: Any]
        json.removeValue(forKey: "loginType")
        let old = try JSONDecoder().decode(AccessToken.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.loginType == LoginType.none)
        #expect(old == F.token())
    }

    @Test("isCurrentAccessTokenActive: a current token that has not expired")
    func currentTokenActive() async {
        let clock = F.Clock()
        let environment = F.environment(clock: clock)
        await F.with(environment) {
            #expect(!AccessToken.isCurrentAccessTokenActive)
            AccessToken.current = F.token(expires: clock.now().addingTimeInterval(10))
            #expect(AccessToken.isCurrentAccessTokenActive)
            clock.advance(by: 10)
            #expect(!AccessToken.isCurrentAccessTokenActive)
        }
    }
}
