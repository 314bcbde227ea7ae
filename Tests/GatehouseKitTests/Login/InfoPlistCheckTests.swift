import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import Testing

/// Issue 30, item 5: the Info.plist checks Facebook's SDK makes before a login, with its messages.
@Suite struct InfoPlistCheckTests {
    static func refusal(_ settings: Settings) async -> String? {
        let manager = LoginManagerTests.manager(
            LoginManagerTests.granting(), environment: LoginTest.environment(settings: settings))
        do {
            _ = try await manager.logIn(permissions: ["email"])
            return nil
        } catch let error as CoreError {
            return error.code == .invalidArgument ? error.message : "\(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aMissingAppIDRefusesTheLoginWithFacebooksMessage() async {
        #expect(
            await Self.refusal(LoginTest.settings(appID: nil))
                == "App ID not found. Add a string value with your app ID for the key "
                + "FacebookAppID to the Info.plist or call Settings.shared.appID.")
    }

    @Test func aMissingURLSchemeRefusesTheLoginWithFacebooksMessage() async {
        let settings = LoginTest.settings(suffix: "lite")
        settings.load(infoDictionary: ["CFBundleURLTypes": [["CFBundleURLSchemes": ["fb\(LoginTest.appID)", "myapp"]]]])
        #expect(settings.registeredURLSchemes == ["fb\(LoginTest.appID)", "myapp"])
        #expect(
            await Self.refusal(settings)
                == "fb\(LoginTest.appID)lite is not registered as a URL scheme. Please add it in your Info.plist")
        // An Info.plist with CFBundleURLTypes but no entries registers nothing.
        let empty = LoginTest.settings()
        empty.registeredURLSchemes = []
        #expect(
            await Self.refusal(empty)
                == "fb\(LoginTest.appID) is not registered as a URL scheme. Please add it in your Info.plist")
    }

    @Test func theRegisteredSchemeLetsTheLoginGoAhead() async {
        let settings = LoginTest.settings(suffix: "lite")
        settings.load(infoDictionary: ["CFBundleURLTypes": [["CFBundleURLSchemes": ["FB\(LoginTest.appID)LITE"]]]])
        #expect(await Self.refusal(settings) == nil)  // schemes compare case-insensitively, as URL schemes do
        #expect(await Self.refusal(LoginTest.settings()) == nil)  // schemes unknown (no Info.plist): not checked
    }

    @Test func aDisplayNameDifferentFromTheServersIsAWarningNotARefusal() {
        #expect(InfoPlistCheck.displayNameWarning(displayName: "My App", serverAppName: "My App") == nil)
        #expect(InfoPlistCheck.displayNameWarning(displayName: nil, serverAppName: "My App") == nil)
        #expect(
            InfoPlistCheck.displayNameWarning(displayName: "Old Name", serverAppName: "My App")
                == "FacebookDisplayName \"Old Name\" in the Info.plist does not match the app's name \"My App\" on the server. "
                + "Set FacebookDisplayName to the name in the app's settings.")
    }
}
