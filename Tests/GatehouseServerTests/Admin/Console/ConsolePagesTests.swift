import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The developer console's pages and forms, without a browser (the real-browser tests cover the rest).
@Suite struct ConsolePagesTests {
    @Test func everyPageRendersWithSecurityHeadersAndTheClock() async throws {
        let server = try await TestServer.make()
        server.clock.advance(by: 2 * 86400 + 3600)
        try await server.run { client in
            for (path, heading) in [
                ("/console", "Console"), ("/console/apps", "Apps"), ("/console/apps/\(server.app.id)", "Test App"),
                ("/console/users", "People"), ("/console/users/\(server.alice.id)", "Alice Anders"),
                ("/console/tokens", "Live tokens"),
                ("/console/errors", "Error injection"), ("/console/clock", "Clock"),
                ("/console/explorer", "Graph API Explorer"),
                ("/console/data", "Export and import"),
            ] {
                let page = try await client.execute(uri: path, method: .get)
                #expect(page.status == .ok, "\(path)")
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.headers[.init("X-Frame-Options")!] == "DENY")
                #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(page.text.contains("<h1>\(heading)</h1>"), "\(path)")
                #expect(page.text.contains("Server time 2027-01-17 09:00 UTC (moved +2d 1h)"), "\(path)")
                #expect(
                    page.text.contains(#"name="csrf_token""#) || ["/console", "/console/tokens"].contains(path),
                    "\(path)")
            }
        }
    }

    @Test func formsNeedTheCSRFTokenAndAnswer303() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/apps")
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let forged = try await browser.post("/console/apps", form: [("name", "Evil")])
            #expect(forged.status == .forbidden)
            #expect(try await server.services.storage.apps.list().count == 1)

            let created = try await browser.post(
                "/console/apps",
                form: [
                    ("csrf_token", csrf), ("name", "Made In Console"),
                    ("redirect_uris", "https://made.example/cb\nhttp://127.0.0.1/callback"),
                ])
            #expect(created.status == .seeOther)
            let app = try #require(try await server.services.storage.apps.list().first { $0.name == "Made In Console" })
            #expect(created.location == "/console/apps/\(app.id)?notice=created")
            #expect(app.redirectURIs == ["https://made.example/cb", "http://127.0.0.1/callback"])

            let saved = try await browser.post(
                "/console/apps/\(app.id)",
                form: [
                    ("csrf_token", csrf), ("name", "Renamed"), ("redirect_uris", "https://made.example/cb"),
                    ("approved", "user_friends"),
                    ("approved", "user_birthday"), ("require_app_secret", "1"),
                    ("deauthorize_callback_url", "https://made.example/deauth"),
                ])
            #expect(saved.location == "/console/apps/\(app.id)?notice=saved")
            let updated = try #require(try await server.services.storage.apps.find(id: app.id))
            #expect(updated.name == "Renamed")
            #expect(updated.approvedPermissions == ["user_friends", "user_birthday"])
            #expect(updated.requireAppSecret)
            #expect(updated.deauthorizeCallbackURL == "https://made.example/deauth")

            let bad = try await browser.post(
                "/console/apps/\(app.id)",
                form: [("csrf_token", csrf), ("name", "X"), ("redirect_uris", "not a url#frag")])
            #expect(bad.status == .badRequest)
            #expect(
                bad.text.contains(
                    "Redirect URI &quot;not a url#frag&quot; must be an absolute URL without a fragment, of at most 2048 characters."
                ))

            // The secret appears only when the developer asks for it.
            #expect(!(try await browser.get("/console/apps/\(app.id)").text.contains(app.secret)))
            #expect(
                try await browser.get("/console/apps/\(app.id)?show=secret").text.contains(
                    #"<code id="app-secret">\#(app.secret)</code>"#))
            let reset = try await browser.post("/console/apps/\(app.id)/reset-secret", form: [("csrf_token", csrf)])
            #expect(reset.location == "/console/apps/\(app.id)?notice=secret")
            #expect(try await server.services.storage.apps.find(id: app.id)?.secret != app.secret)

            let role = try await browser.post(
                "/console/apps/\(app.id)/roles",
                form: [("csrf_token", csrf), ("user_id", server.bob.id), ("role", "tester")])
            #expect(role.status == .seeOther)
            #expect(try await server.services.storage.apps.role(appID: app.id, userID: server.bob.id) == .tester)
        }
    }

    @Test func peopleProfilesPicturesAndFriendships() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: try await browser.get("/console/users").text))
            let created = try await browser.post(
                "/console/users",
                form: [
                    ("csrf_token", csrf), ("first_name", "Carol"), ("last_name", "Cole"),
                    ("email", "carol@example.com"), ("password", "carol-password"), ("test_user_of", ""),
                ])
            let carol = try #require(try await server.services.storage.users.find(email: "carol@example.com"))
            #expect(created.location == "/console/users/\(carol.id)?notice=created")
            let edited = try await browser.post(
                "/console/users/\(carol.id)",
                form: [
                    ("csrf_token", csrf), ("first_name", "Caroline"), ("last_name", "Cole"),
                    ("email", "carol@example.com"), ("birthday", "02/03/1991"), ("location", "Porto, Portugal"),
                ])
            #expect(edited.status == .seeOther)
            let after = try await server.services.storage.users.find(id: carol.id)
            #expect(after?.firstName == "Caroline")
            #expect(after?.birthday == "02/03/1991")
            #expect(after?.location?.name == "Porto, Portugal")
            let taken = try await browser.post(
                "/console/users/\(carol.id)",
                form: [("csrf_token", csrf), ("first_name", "C"), ("last_name", "C"), ("email", "alice@example.com")])
            #expect(taken.status == .badRequest)

            _ = try await browser.post(
                "/console/users/\(carol.id)/friends",
                form: [("csrf_token", csrf), ("friend_id", server.alice.id), ("action", "add")])
            #expect(try await server.services.storage.friendships.areFriends(carol.id, server.alice.id))

            // A PNG upload, multipart like a browser sends it.
            let png = AvatarRenderer.render(seed: "x", initials: "CC", size: 32)
            var body = ByteBuffer()
            body.writeString("--XyZ\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n\(csrf)\r\n")
            body.writeString("--XyZ\r\nContent-Disposition: form-data; name=\"action\"\r\n\r\nupload\r\n")
            body.writeString(
                "--XyZ\r\nContent-Disposition: form-data; name=\"picture\"; filename=\"me.png\"\r\nContent-Type: image/png\r\n\r\n"
            )
            body.writeBytes(png)
            body.writeString("\r\n--XyZ--\r\n")
            var headers = browser.cookieHeaders()
            headers[.contentType] = "multipart/form-data; boundary=XyZ"
            let uploaded = try await client.execute(
                uri: "/console/users/\(carol.id)/picture", method: .post, headers: headers, body: body)
            #expect(uploaded.status == .seeOther)
            #expect(try await server.services.storage.users.find(id: carol.id)?.picture == Data(png))
            let picture = try await browser.get("/console/users/\(carol.id)/picture.png")
            #expect(Array(picture.body.readableBytesView) == png)
        }
    }

    @Test func tokensAreListedAndRevocable() async throws {
        let server = try await TestServer.make()
        let token = try await server.token(for: server.alice, granted: ["public_profile", "email"])
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/tokens?app=\(server.app.id)")
            #expect(page.text.contains("public_profile, email"))
            #expect(!page.text.contains(token))
            let record = try #require(
                try await server.services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)))
            #expect(page.text.contains(record.id))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let revoked = try await browser.post("/console/tokens/\(record.id)/revoke", form: [("csrf_token", csrf)])
            #expect(revoked.location == "/console/tokens?notice=revoked")
            #expect(try await client.execute(uri: "/me?access_token=\(token)", method: .get).status == .badRequest)
        }
    }

    @Test func explorerRunsGraphCallsAndMintsTokens() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let browser = Browser(client)
            let csrf = try #require(
                Browser.hiddenValue("csrf_token", in: try await browser.get("/console/explorer").text))
            let minted = try await browser.post(
                "/console/explorer",
                form: [
                    ("csrf_token", csrf), ("app", server.app.id), ("user", server.alice.id),
                    ("permission", "public_profile"),
                    ("permission", "email"), ("action", "token"), ("method", "GET"), ("path", "me"),
                    ("fields", "id,email"),
                ])
            #expect(minted.status == .ok)
            let tokenValue = try #require(
                minted.text.components(separatedBy: #"name="access_token" type="text" class="mono" value=""#)
                    .dropFirst().first?.split(separator: "\"").first.map(String.init))
            #expect(tokenValue.hasPrefix("EAAG"))
            let ran = try await browser.post(
                "/console/explorer",
                form: [
                    ("csrf_token", csrf), ("app", server.app.id), ("user", server.alice.id),
                    ("access_token", tokenValue),
                    ("action", "run"), ("method", "GET"), ("path", "me"), ("fields", "id,email"),
                ])
            let scoped = try await server.scopedID(server.alice)
            #expect(ran.text.contains(#"<span class="status-ok" id="result-status">200</span>"#))
            #expect(ran.text.contains("&quot;email&quot;: &quot;alice@example.com&quot;"))
            #expect(ran.text.contains(scoped))
            let failing = try await browser.post(
                "/console/explorer",
                form: [
                    ("csrf_token", csrf), ("access_token", "junk"), ("action", "run"), ("method", "GET"),
                    ("path", "me"),
                ])
            #expect(failing.text.contains(#"<span class="status-err" id="result-status">400</span>"#))
        }
    }

    @Test func importThroughTheConsoleReplacesTheState() async throws {
        let server = try await TestServer.make()
        let exported = try EmulatorState.encoder.encode(try await StateTransfer(services: server.services).export())
        let other = try await TestServer.make()
        try await other.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/data").text
            // The export is the admin API's own (the session opens it), saved under the name the CLI's docs use.
            #expect(page.contains(#"<a href="/admin/api/v1/state" class="primary" download="gatehouse-state.json">"#))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page))
            var body = ByteBuffer()
            body.writeString(
                "--B\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n\(csrf)\r\n--B\r\nContent-Disposition: form-data; name=\"state\"; filename=\"state.json\"\r\nContent-Type: application/json\r\n\r\n"
            )
            body.writeBytes(exported)
            body.writeString("\r\n--B--\r\n")
            var headers = browser.cookieHeaders()
            headers[.contentType] = "multipart/form-data; boundary=B"
            let imported = try await client.execute(
                uri: "/console/data/import", method: .post, headers: headers, body: body)
            #expect(imported.status == .seeOther)
            #expect(imported.location == "/console?notice=imported")
            #expect(try await other.services.storage.apps.list().map(\.id) == [server.app.id])
        }
        try await server.close()
    }
}
