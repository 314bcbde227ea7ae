import Foundation
import GatehouseServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 32 item 4: the enrolment page draws its `otpauth://` link as a QR code with two same-origin scripts (the
/// vendored qrcode-generator and Gatehouse's own), under a CSP that allows them and nothing inline. The drawing
/// itself is checked in real Chromium (TwoFactorBrowserTests).
@Suite struct TwoFactorQRCodeTests {
    @Test func theScriptsAreServedAsCacheableJavaScriptWithAnETag() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let library = try await client.execute(uri: "/static/vendor/qrcode-generator/qrcode.js", method: .get)
            #expect(library.status == .ok)
            #expect(library.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(library.headers[.cacheControl] == "public, max-age=86400")
            #expect(library.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            // Same-origin only: not offered to other sites as sdk.js is.
            #expect(library.headers[.accessControlAllowOrigin] == nil)
            // Unmodified, with its licence header.
            #expect(
                library.text.hasPrefix(
                    "//---------------------------------------------------------------------\n//\n// QR Code "
                        + "Generator for JavaScript\n//\n// Copyright (c) 2009 Kazuhiko Arase"
                ))
            #expect(library.text.contains("Licensed under the MIT license"))
            #expect(library.text.contains("_this.createSvgTag = function"))
            let etag = try #require(library.headers[.eTag])
            var conditional = HTTPFields()
            conditional[.ifNoneMatch] = etag
            let again = try await client.execute(
                uri: "/static/vendor/qrcode-generator/qrcode.js", method: .get, headers: conditional)
            #expect(again.status == .notModified)
            #expect(again.headers[.eTag] == etag)
            #expect(again.body.readableBytes == 0)

            let script = try await client.execute(uri: "/static/two-factor-qr.js", method: .get)
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.cacheControl] == "public, max-age=86400")
            #expect(script.text.contains(#"document.getElementById("otpauth-uri")"#))
            #expect(script.headers[.eTag] != etag)
        }
    }

    @Test func theEnrolmentPageLoadsTheScriptsUnderAStrictCSP() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let settings = try await TwoFactorLoginTests.logInToSettings(browser)
            // The settings page itself runs no script.
            #expect(settings.headers[.contentSecurityPolicy]?.contains("script-src") == false)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: settings.text))
            _ = try await browser.post(
                "/settings/two-factor/start", form: [("csrf_token", csrf), ("password", "alice-password")])
            let setup = try await browser.get("/settings/two-factor")
            #expect(setup.status == .ok)
            #expect(
                setup.headers[.contentSecurityPolicy]
                    == "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "
                    + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
            )
            #expect(setup.text.contains(#"<script src="/static/vendor/qrcode-generator/qrcode.js" defer></script>"#))
            #expect(setup.text.contains(#"<script src="/static/two-factor-qr.js" defer></script>"#))
            #expect(!setup.text.contains("<script>"))
            // Where the QR code goes (hidden until drawn), and the link and key stay for people who type them.
            #expect(setup.text.contains(#"<p id="otpauth-qr" class="qr" hidden></p>"#))
            #expect(setup.text.contains(#"id="otpauth-uri""#) && setup.text.contains(#"id="two-factor-secret""#))
        }
    }
}
