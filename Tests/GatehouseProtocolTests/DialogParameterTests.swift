import Foundation
import GatehouseProtocol
import Testing

/// Issue 31, item 6: the dialog's parameter names are written once, in `DialogParameter`. The SDK's URL builder
/// and the server's parser must read them from there; a name spelled as a literal in either fails here.
@Suite struct DialogParameterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let readers = [
        "Sources/GatehouseKit/Login/LoginDialogURL.swift", "Sources/GatehouseCore/Dialog/DialogRequest.swift",
    ]
    static let names = [
        DialogParameter.clientID, DialogParameter.redirectURI, DialogParameter.state, DialogParameter.scope,
        DialogParameter.responseType, DialogParameter.returnScopes, DialogParameter.authType, DialogParameter.authNonce,
        DialogParameter.nonce, DialogParameter.codeChallenge, DialogParameter.codeChallengeMethod,
        DialogParameter.defaultAudience, DialogParameter.trackingPreference, DialogParameter.fastAppSwitch,
        DialogParameter.userTokenNonce, DialogParameter.localClientID, DialogParameter.messengerPageID,
    ]

    @Test func theSDKAndTheServerReadTheNamesFromOnePlace() throws {
        for file in Self.readers {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("DialogParameter."), "\(file) does not read DialogParameter")
            for name in Self.names {
                #expect(!text.contains("\"\(name)\""), "\(file) spells \"\(name)\" itself")
            }
        }
    }

    @Test func theNamesAreFacebooks() {
        #expect(
            Self.names == [
                "client_id", "redirect_uri", "state", "scope", "response_type", "return_scopes", "auth_type",
                "auth_nonce",
                "nonce", "code_challenge", "code_challenge_method", "default_audience", "tp", "ios_fast_app_switch",
                "user_token_nonce", "local_client_id", "messenger_page_id",
            ])
        #expect(WirePath.loginDialog == "dialog/oauth")
        #expect(WirePath.accessToken == "oauth/access_token")
    }
}
