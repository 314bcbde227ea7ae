import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Item 12: `Settings` reads Info.plist keys (from a dictionary, the JSON file or the environment) and
/// has Facebook's other common members.
@Suite struct SettingsPlatformTests {
    @Test func infoDictionaryKeys() {
        let settings = Settings()
        settings.load(infoDictionary: [
            "FacebookAppID": "321", "FacebookClientToken": "ct", "FacebookDisplayName": "Demo",
            "FacebookUrlSchemeSuffix": "lite",
            "GatehouseServerURL": "http://127.0.0.1:9999", "FacebookAutoLogAppEventsEnabled": false,
            "FacebookAdvertiserIDCollectionEnabled": NSNumber(value: false),
            "FacebookLoggingBehavior": ["network_requests", "app_events"],
            "CFBundleName": "ignored",
        ])
        #expect(settings.appID == "321")
        #expect(settings.clientToken == "ct")
        #expect(settings.displayName == "Demo")
        #expect(settings.appURLSchemeSuffix == "lite")
        #expect(settings.appURLScheme == "fb321lite")
        #expect(settings.serverURL.absoluteString == "http://127.0.0.1:9999")
        #expect(!settings.isAutoLogAppEventsEnabled)
        #expect(!settings.isAdvertiserIDCollectionEnabled)
        #expect(settings.loggingBehaviors == [.networkRequests, .appEvents])
    }

    @Test func linuxReadsTheJSONFileThenTheEnvironment() throws {
        #if !canImport(Darwin)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gatehouse-settings-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"{"FacebookAppID": "111", "FacebookClientToken": "from-file", "FacebookDisplayName": "File"}"#.utf8
        ).write(to: file)
        let settings = Settings()
        settings.loadPlatformDefaults(environment: [
            "GATEHOUSE_CONFIG_FILE": file.path, "GATEHOUSE_CLIENT_TOKEN": "from-env",
        ])
        #expect(settings.appID == "111")
        #expect(settings.displayName == "File")
        #expect(settings.clientToken == "from-env")
        #endif
    }

    @Test func facebooksOtherMembers() {
        let settings = Settings()
        #expect(settings.loggingBehaviors == [.developerErrors])
        settings.enableLoggingBehavior(.networkRequests)
        settings.disableLoggingBehavior(.developerErrors)
        #expect(settings.loggingBehaviors == [.networkRequests])
        #expect(LoggingBehavior.accessTokens.rawValue == "include_access_tokens")
        #expect(!settings.isAdvertiserTrackingEnabled)
        settings.isAdvertiserTrackingEnabled = true
        #expect(settings.isAdvertiserTrackingEnabled)
        #expect(settings.graphAPIVersion == "v27.0")
        #expect(settings.sdkVersion == "18.1.0")
        let copy = settings.copy()
        settings.appID = "changed"
        #expect(copy.appID == nil)
        #expect(copy.loggingBehaviors == [.networkRequests])
    }

    @Test func applicationDelegateHooksForwardURLs() async throws {
        let environment = GatehouseKitEnvironment(tokenCache: InMemoryTokenCache())
        let delegate = ApplicationDelegate()
        GatehouseKitEnvironment.$taskOverride.withValue(environment) {
            #if !canImport(UIKit)
            // Nothing pending: not a login's URL.
            #expect(!delegate.application(nil, open: URL(string: "fb1://authorize/#access_token=x")!, options: [:]))
            #expect(
                !delegate.application(
                    nil, open: URL(string: "fb1://authorize/")!, sourceApplication: nil, annotation: nil))
            #endif
        }
        let presenter = URLSchemeLoginPresenter(
            environment: LoginTest.environment(), applicationDelegate: delegate, opener: { _ in true })
        let waiting = Task { try await presenter.present(URL(string: "https://example.com/dialog/oauth")!) }
        #expect(await SessionKitFixtures.eventually { delegate.isLoginPending })
        let callback = URL(string: "fb\(LoginTest.appID)://authorize/#state=x")!
        #if !canImport(UIKit)
        #expect(
            delegate.application(nil, open: callback, sourceApplication: "com.apple.mobilesafari", annotation: nil))
        #endif
        #expect(try await waiting.value == callback)
    }
}
