import Foundation
import Testing
import GatehouseKit
import GatehouseKitTestSupport

@Suite("FileTokenCache")
struct FileTokenCacheTests {
    typealias F = SessionKitFixtures

    @Test("a token reads back equal, in a 0600 file inside a 0700 folder")
    func roundTripAndModes() throws {
        let directory = F.directory().appendingPathComponent("gatehouse")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let cache = FileTokenCache(directory: directory)
        let token = F.token(permissions: ["public_profile", "email"], declined: ["user_friends"])
        cache.accessToken = token
        cache.authenticationToken = AuthenticationToken(tokenString: "a.b.c", nonce: "n-1")

        let reread = FileTokenCache(directory: directory)
        #expect(reread.accessToken == token)
        #expect(reread.accessToken?.refreshDate == token.refreshDate)
        #expect(reread.authenticationToken == AuthenticationToken(tokenString: "a.b.c", nonce: "n-1"))
        #expect(cache.fileURL == directory.appendingPathComponent("token-cache.json"))
        #expect(try F.mode(of: cache.fileURL) == 0o600)
        #expect(try F.mode(of: directory) == 0o700)
        #expect(try F.mode(of: directory.appendingPathComponent("install-id")) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.isEmpty)
    }

    @Test("the file stores the token under the seeds' key with Facebook's archive field names")
    func fileLayout() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileTokenCache(directory: directory)
        cache.accessToken = F.token()
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: cache.fileURL)) as? [String: Any]
        let entry = json?["FBAccessTokenInformationKey"] as? [String: Any]
        let installID = try String(contentsOf: directory.appendingPathComponent("install-id"), encoding: .utf8)
        #expect(entry?["tokenUUID"] as? String == installID.trimmingCharacters(in: .whitespacesAndNewlines))
        let token = entry?["accessToken"] as? [String: Any]
        #expect(token?["userID"] as? String == "100")
        #expect(token?["permissions"] as? [String] == ["public_profile"])
        #expect(
            Set(token?.keys.map { $0 } ?? []) == [
                "tokenString", "permissions", "declinedPermissions", "expiredPermissions", "appID", "userID",
                "expirationDate", "refreshDate", "dataAccessExpirationDate", "loginType",
            ])
    }

    @Test("key names keep several people's tokens apart in one file")
    func keyNames() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = FileTokenCache(directory: directory, keyName: "SUUserTokenInformationKey1")
        let bob = FileTokenCache(directory: directory, keyName: "SUUserTokenInformationKey2")
        alice.accessToken = F.token(user: "1", string: "EAA-alice")
        bob.accessToken = F.token(user: "2", string: "EAA-bob")
        #expect(FileTokenCache(directory: directory, keyName: "SUUserTokenInformationKey1").accessToken?.userID == "1")
        #expect(FileTokenCache(directory: directory, keyName: "SUUserTokenInformationKey2").accessToken?.userID == "2")
        #expect(FileTokenCache(directory: directory).accessToken == nil)
        #expect(alice.storedKeyNames == ["SUUserTokenInformationKey1", "SUUserTokenInformationKey2"])
        bob.accessToken = nil
        #expect(alice.storedKeyNames == ["SUUserTokenInformationKey1"])
        alice.clear()
        #expect(alice.storedKeyNames == [])
        #expect(!FileManager.default.fileExists(atPath: alice.fileURL.path))
    }

    @Test("a missing install marker (reinstall) discards the cached token")
    func reinstallMissingMarker() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = directory.appendingPathComponent("app-data/install-id")
        FileTokenCache(directory: directory, installMarkerURL: marker).accessToken = F.token()
        #expect(FileTokenCache(directory: directory, installMarkerURL: marker).accessToken?.userID == "100")

        try FileManager.default.removeItem(at: marker)
        let afterReinstall = FileTokenCache(directory: directory, installMarkerURL: marker)
        #expect(afterReinstall.accessToken == nil)
        #expect(afterReinstall.storedKeyNames == [])
        // Discarded, not just hidden: the file no longer holds it.
        #expect(!FileManager.default.fileExists(atPath: afterReinstall.fileURL.path))
    }

    @Test("a different install marker discards the token; the next write uses the new installation")
    func reinstallDifferentMarker() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileTokenCache(directory: directory)
        cache.accessToken = F.token()
        cache.authenticationToken = AuthenticationToken(tokenString: "x.y.z", nonce: "n")
        try Data((UUID().uuidString + "\n").utf8).write(to: cache.installMarkerURL)
        #expect(cache.authenticationToken == nil)
        #expect(cache.accessToken == nil)

        cache.accessToken = F.token(user: "200")
        #expect(FileTokenCache(directory: directory).accessToken?.userID == "200")
        #expect(FileTokenCache(directory: directory).authenticationToken == nil)
    }

    @Test("a corrupt cache file reads as empty and is replaced by the next write")
    func corruptFile() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileTokenCache(directory: directory)
        cache.accessToken = F.token()
        try Data("{\"com.facebook.sdk.v4.FBSDKAccessTokenInf".utf8).write(to: cache.fileURL)
        #expect(cache.accessToken == nil)
        #expect(cache.storedKeyNames == [])

        cache.accessToken = F.token(user: "300")
        #expect(FileTokenCache(directory: directory).accessToken?.userID == "300")
        #expect(try F.mode(of: cache.fileURL) == 0o600)
    }

    @Test("an entry that no longer decodes is skipped without losing the others")
    func corruptEntry() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = FileTokenCache(directory: directory, keyName: "good")
        good.accessToken = F.token(user: "1")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: good.fileURL)) as! [String: Any]
        json["bad"] = ["tokenUUID": 42, "accessToken": "nonsense"]
        try JSONSerialization.data(withJSONObject: json).write(to: good.fileURL)
        #expect(FileTokenCache(directory: directory, keyName: "bad").accessToken == nil)
        #expect(good.accessToken?.userID == "1")
    }

    @Test("a corrupt install marker counts as missing and is replaced")
    func corruptMarker() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileTokenCache(directory: directory)
        cache.accessToken = F.token()
        try Data("not a uuid".utf8).write(to: cache.installMarkerURL)
        #expect(cache.accessToken == nil)
        cache.accessToken = F.token(user: "400")
        #expect(cache.accessToken?.userID == "400")
        let marker = try String(contentsOf: cache.installMarkerURL, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: marker) != nil)
    }

    @Test("the default folder follows XDG_CONFIG_HOME, else ~/.config")
    func defaultDirectory() {
        #expect(
            FileTokenCache.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/srv/cfg", "HOME": "/home/a"]).path
                == "/srv/cfg/gatehouse")
        #expect(FileTokenCache.defaultDirectory(environment: ["HOME": "/home/a"]).path == "/home/a/.config/gatehouse")
        // The XDG spec ignores relative paths.
        #expect(
            FileTokenCache.defaultDirectory(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/a"]).path
                == "/home/a/.config/gatehouse")
        #expect(FileTokenCache(directory: URL(fileURLWithPath: "/tmp/x")).keyName == "FBAccessTokenInformationKey")
    }
}
