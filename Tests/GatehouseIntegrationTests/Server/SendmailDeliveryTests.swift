import ChildProcesses
import Foundation
@testable import GatehouseCore
@testable import GatehouseServer
import GatehouseTestSupport
import Testing

/// Issue 32, item 2: production mail goes through a sendmail-compatible command (Debian's msmtp) to a real SMTP
/// server on loopback (aiosmtpd from PyPI), over STARTTLS with a certificate the command checks; a failed
/// delivery is kept, explained and scheduled again, and never raised to the request that queued it.
@Suite(.tags(.process)) struct SendmailDeliveryTests {
    /// An SMTP server on 127.0.0.1 that requires STARTTLS and writes each message, with its envelope and whether
    /// TLS was on, to `DIR/in/N.eml`.
    static let sink = #"""
        import os, socket, ssl, sys, time
        from aiosmtpd.controller import Controller
        d = sys.argv[1]
        os.makedirs(os.path.join(d, "in"), exist_ok=True)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(os.path.join(d, "cert.pem"), os.path.join(d, "key.pem"))
        class Sink:
            async def handle_DATA(self, server, session, envelope):
                n = len(os.listdir(os.path.join(d, "in")))
                head = "X-Envelope-From: %s\r\nX-Envelope-To: %s\r\nX-TLS: %s\r\n" % (envelope.mail_from, ",".join(envelope.rcpt_tos), "yes" if session.ssl else "no")
                with open(os.path.join(d, "in", "%d.eml" % n), "wb") as f:
                    f.write(head.encode() + envelope.original_content)
                return "250 OK"
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        c = Controller(Sink(), hostname="127.0.0.1", port=port, tls_context=ctx, require_starttls=True)
        c.start()
        print("ready %d" % port, flush=True)
        while True: time.sleep(3600)
        """#

    @Test func aResetMailReachesARealSMTPServerOverSTARTTLSAndAFailureIsRetriedLater() async throws {
        let scratch = try ScratchDirectory.create("smtp")
        defer { scratch.remove() }
        let dir = scratch.path
        let cert = try await ChildProcess.run(
            "openssl",
            arguments: [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/key.pem", "-out", "\(dir)/cert.pem",
                "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], mergingStandardError: true)
        #expect(cert.status == 0, "\(cert.standardOutput)")
        let smtp = try await ChildProcess.start("python3", arguments: ["-c", Self.sink, dir])
        let ready = try #require(
            await smtp.waitForOutput(containing: "ready ", timeout: .seconds(60)),
            "aiosmtpd did not start: \(smtp.output)")
        defer { smtp.terminate() }
        let port = try #require(
            ready.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }).flatMap { Int($0.dropFirst(6)) })

        let server = try await TestServer.make(mode: .production) { configuration in
            configuration.mail.from = "Gatehouse <no-reply@gatehouse.test>"
            configuration.mail.sendmailCommand =
                "/usr/bin/msmtp --host=127.0.0.1 --port=\(port) --auth=off --tls=on --tls-starttls=on --tls-trust-file=\(dir)/cert.pem -t"
        }
        let outbox = try #require(server.services.mail)
        #expect(outbox.sends)
        let pages = try await PageRenderer.load(devMode: false)
        let mailer = AccountMailer(services: server.services, pages: pages)
        let queued = try await mailer.send(
            kind: "reset_password", userID: server.alice.id, to: "alice@example.com",
            subject: "Reset your Gatehouse password",
            values: [
                "firstName": "Alice", "link": "http://gatehouse.test/account/reset?c=ABC123", "expiresMinutes": 60,
            ])
        #expect(queued.nextAttemptAt == server.clock.now())

        let sent = await outbox.deliverDue()
        #expect(sent.count == 1)
        #expect(sent.first?.deliveredAt != nil)
        #expect(sent.first?.lastError == nil)
        // Once sent, the outbox keeps who, what and when, not the link.
        let stored = try #require(try await server.services.storage.mail?.find(id: queued.id))
        #expect(stored.text.isEmpty && stored.html.isEmpty)
        #expect(stored.deliveredAt != nil)

        let received = try String(contentsOfFile: "\(dir)/in/0.eml", encoding: .utf8)
        #expect(received.contains("X-Envelope-From: no-reply@gatehouse.test\r\n"))
        #expect(received.contains("X-Envelope-To: alice@example.com\r\n"))
        #expect(received.contains("X-TLS: yes\r\n"))
        #expect(received.contains("Subject: Reset your Gatehouse password\r\n"))
        #expect(received.contains("Content-Type: multipart/alternative"))
        // The plain-text part carries the link.
        let textPart = try #require(
            received.components(
                separatedBy: "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            ).last)
        let base64 = textPart.components(separatedBy: "\r\n--").first?.replacingOccurrences(of: "\r\n", with: "") ?? ""
        let decoded = String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
        #expect(decoded.contains("http://gatehouse.test/account/reset?c=ABC123"))

        // The server goes away: the attempt fails, is recorded, and is due again after the first back-off.
        smtp.terminate()
        _ = await smtp.waitForExit()
        let second = try await mailer.send(
            kind: "confirm_email", userID: server.alice.id, to: "alice@example.com", subject: "Confirm",
            values: ["link": "http://x.test/"])
        let failed = await outbox.deliverDue()
        #expect(failed.first?.id == second.id)
        #expect(failed.first?.deliveredAt == nil)
        #expect(failed.first?.lastError?.hasPrefix("/usr/bin/msmtp exited with status") == true)
        #expect(failed.first?.nextAttemptAt == server.clock.now().addingTimeInterval(OutboxPolicy.mail.backoff[0]))
        #expect(try await server.services.storage.mail?.find(id: second.id)?.text.isEmpty == false)
        try await server.services.storage.shutdown()
        server.scratch.remove()
    }
}
