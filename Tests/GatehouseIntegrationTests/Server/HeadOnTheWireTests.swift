import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Issue 41 item 1 on a real socket: `curl -I` against `gatehouse serve` gets the `GET`'s status and headers,
/// `Content-Length` the length of the body the `GET` sends, and no body, on a Graph call with a valid token, the
/// dialog, a page and `sdk.js`; a page asked with a method it lacks answers 405 with `Allow`.
@Suite(.tags(.process)) struct HeadOnTheWireTests {
    /// An answer's status line and headers as curl printed them (`Date` left out), and its body's length.
    struct Answer: Equatable {
        var statusLine: String
        var headers: [String]
        var bodyBytes: Int

        func header(_ name: String) -> String? {
            let prefix = name.lowercased() + ": "
            return headers.first { $0.lowercased().hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
    }

    /// Runs curl with `arguments`, printing the head to standard output and the body's size after a marker.
    static func curl(_ arguments: [String], _ url: String) async throws -> Answer {
        let marker = "\n--body-bytes:"
        let run = try await ChildProcess.run(
            "curl",
            arguments: ["-sS", "--max-time", "30", "-D", "-", "-o", "/dev/null", "-w", marker + "%{size_download}"]
                + arguments + [url])
        #expect(run.status == 0, "curl \(arguments) \(url): \(run.standardError)")
        let parts = run.standardOutput.components(separatedBy: marker)
        let lines = parts[0].components(separatedBy: "\r\n").filter { !$0.isEmpty }
        return Answer(
            statusLine: lines.first ?? "",
            headers: lines.dropFirst().filter { !$0.lowercased().hasPrefix("date: ") },
            bodyBytes: Int(parts.last ?? "") ?? -1)
    }

    @Test func curlHeadGetsTheGetsHeadersAndContentLength() async throws {
        let server = try await ServedGatehouse.start()
        defer { server.stop() }
        let seed = try #require(server.seed)
        let base = server.baseURL
        // A valid token: a test user of the demo app, made with the app's token.
        let created = try await ChildProcess.run(
            "curl",
            arguments: [
                "-sS", "-X", "POST",
                "\(base)/v21.0/\(seed.app.id)/accounts/test-users?installed=true&access_token=\(seed.app.id)%7C"
                    + seed.app.secret,
            ])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(created.standardOutput.utf8)) as? [String: Any])
        let token = try #require(json["access_token"] as? String)
        let urls = [
            "\(base)/v21.0/me?access_token=\(token)",
            seed.dialogURL,
            "\(base)/login",
            "\(base)/sdk.js",
        ]
        for url in urls {
            let get = try await Self.curl([], url)
            let head = try await Self.curl(["-I"], url)
            #expect(get.statusLine == "HTTP/1.1 200 OK", "\(url)")
            #expect(head.statusLine == get.statusLine, "\(url)")
            #expect(head.bodyBytes == 0, "\(url)")
            #expect(get.bodyBytes > 0, "\(url)")
            #expect(head.header("Content-Length") == String(get.bodyBytes), "\(url)")
            // The dialog sets a fresh CSRF cookie on each answer; every other header is the same.
            #expect(
                head.headers.filter { !$0.lowercased().hasPrefix("set-cookie:") }
                    == get.headers.filter { !$0.lowercased().hasPrefix("set-cookie:") }, "\(url)")
        }
        #expect(try await Self.curl(["-I"], "\(base)/sdk.js").header("ETag") != nil)

        let put = try await Self.curl(["-X", "PUT"], "\(base)/login")
        #expect(put.statusLine == "HTTP/1.1 405 Method Not Allowed")
        #expect(put.header("Allow") == "GET, HEAD, POST")
    }
}
