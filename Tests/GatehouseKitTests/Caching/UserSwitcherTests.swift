import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport

@Suite("UserSwitcher")
struct UserSwitcherTests {
    typealias F = SessionKitFixtures

    @Test("two people log in one after the other, then the app switches between them")
    func switchBetweenTwoUsers() throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = F.environment(tokenCache: nil)
        let switcher = UserSwitcher(directory: directory, environment: environment)
        let changes = F.Recorder(.AccessTokenDidChange, on: environment)
        let alice = F.token(user: "1", string: "EAA-alice")
        let bob = F.token(user: "2", string: "EAA-bob")

        switcher.switchToNewUser()
        environment.setCurrentAccessToken(alice)  // the login
        #expect(switcher.saveCurrentToken() == "1")
        #expect(switcher.activeUserID == "1")

        switcher.switchToNewUser()
        #expect(environment.currentAccessToken == nil)
        environment.setCurrentAccessToken(bob)
        #expect(switcher.saveCurrentToken() == "2")

        #expect(switcher.storedUserIDs == ["1", "2"])
        #expect(switcher.storedToken(forUserID: "1") == alice)
        #expect(switcher.keyName(forUserID: "2") == "FBAccessTokenInformationKey.2")

        let before = changes.count
        #expect(switcher.switchTo(userID: "1") == alice)
        #expect(environment.currentAccessToken == alice)
        #expect((environment.tokenCache as? FileTokenCache)?.keyName == switcher.keyName(forUserID: "1"))
        #expect(switcher.activeUserID == "1")
        #expect(changes.count == before + 1)
        let last = try #require(changes.all.last)
        #expect(last[AccessTokenChangeOldKey] as? AccessToken == bob)
        #expect(last[AccessTokenChangeNewKey] as? AccessToken == alice)
        #expect(last[AccessTokenDidChangeUserIDKey] as? Bool == true)

        // A refresh while Alice is active lands in her slot only.
        let refreshed = F.token(user: "1", string: "EAA-alice-2")
        environment.setCurrentAccessToken(refreshed)
        #expect(switcher.storedToken(forUserID: "1") == refreshed)
        #expect(switcher.storedToken(forUserID: "2") == bob)

        #expect(switcher.switchTo(userID: "2") == bob)
        #expect(environment.currentAccessToken == bob)
        #expect(switcher.switchTo(userID: "2") == bob)
        #expect(changes.count == before + 3)  // switching to the active person posts nothing
    }

    @Test("slots survive a relaunch and removing the active person logs them out")
    func relaunchAndRemove() {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = F.environment(tokenCache: nil)
        let switcher = UserSwitcher(directory: directory, environment: first)
        for user in ["7", "8"] {
            switcher.switchToNewUser()
            first.setCurrentAccessToken(F.token(user: user, string: "EAA-\(user)"))
            switcher.saveCurrentToken()
        }

        let relaunched = F.environment(tokenCache: nil)
        let again = UserSwitcher(directory: directory, environment: relaunched)
        #expect(again.storedUserIDs == ["7", "8"])
        #expect(again.activeUserID == nil)
        again.switchTo(userID: "7")
        #expect(relaunched.currentAccessToken?.tokenString == "EAA-7")
        again.remove(userID: "7")
        #expect(relaunched.currentAccessToken == nil)
        #expect(again.storedUserIDs == ["8"])
        #expect(again.switchTo(userID: "9") == nil)
    }

    @Test("with no current token there is nothing to save")
    func nothingToSave() {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let switcher = UserSwitcher(directory: directory, environment: F.environment(tokenCache: nil))
        #expect(switcher.saveCurrentToken() == nil)
        #expect(switcher.storedUserIDs == [])
    }
}
