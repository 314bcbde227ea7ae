import Foundation
@testable import GatehouseServer
import Testing

/// The login code checkpoint and the account-state pages send the person back to `next`: only Gatehouse's own
/// login pages, but those as the SDKs open them, long and under a version segment (found by TwoFactorBrowserTests).
@Suite struct AccountGateNextTests {
    @Test func theDialogsOwnAddressIsAcceptedLongAndVersioned() {
        let long =
            "/v27.0/dialog/oauth?client_id=1&redirect_uri=fb1%3A%2F%2Fauthorize%2F&state="
            + String(repeating: "a", count: 900)
        #expect(AccountGate.safeNext(long) == long)
        #expect(AccountGate.safeNext("/dialog/oauth?client_id=1") == "/dialog/oauth?client_id=1")
        #expect(AccountGate.safeNext("/v2.3/dialog/oauth?client_id=1") == "/v2.3/dialog/oauth?client_id=1")
        #expect(AccountGate.safeNext("/settings/apps") == "/settings/apps")
    }

    @Test func anythingElseIsRefused() {
        for next in [
            "https://evil.example/dialog/oauth", "//evil.example/dialog/oauth", "/v27.0/console", "/vX/dialog/oauth",
            "/v27.0//evil.example/dialog/", "/console", "/dialog/oauth?" + String(repeating: "a", count: 9000), "",
            "/v27.0/dialog/oauth\u{0000}", "/\\evil.example",
        ] {
            #expect(AccountGate.safeNext(next) == nil, "\(next.prefix(60))")
        }
        #expect(AccountGate.safeNext(nil) == nil)
    }
}
