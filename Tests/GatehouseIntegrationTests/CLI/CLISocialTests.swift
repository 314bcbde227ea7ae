import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Publish permissions, posting, and the feed and requests dialogs from the CLI against a real `gatehouse serve`,
/// with Python playing the person in the browser.
@Suite(.serialized, .tags(.process)) struct CLISocialTests {
    /// Starts `gatehouse dialog … --no-browser`, returns the process and the dialog URL it printed.
    static func startDialog(_ arguments: [String]) async throws -> (ServerProcess, String) {
        let process = try await ServerProcess(arguments: ["dialog", "--no-browser"] + arguments)
        let output = try await process.waitFor("/dialog/")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/dialog/") })
        return (process, String(line))
    }

    @Test func publishPostAndUseBothDialogs() async throws {
        let data = try CLIProcess.temporaryDirectory(), cache = try CLIProcess.temporaryDirectory(),
            bobCache = try CLIProcess.temporaryDirectory()
        defer { for dir in [data, cache, bobCache] { try? FileManager.default.removeItem(atPath: dir) } }
        let server = try await ServedGatehouse.start(dataDirectory: .given(data))
        defer { server.stop() }
        let common = ["--data-dir", data, "--cache-dir", cache]

        // Log in asking for publish_actions: the dialog's read step, then its publish step with the audience.
        let (login, url) = try await CLILoginTests.startLogin(
            ["--permissions", "publish_actions", "--audience", "only_me"] + common)
        #expect(url.contains("default_audience=only_me"))
        _ = try await CLILoginTests.browse(url, "alice@gatehouse.test", "alice-gatehouse", ["grant"])
        #expect(try await login.waitForExit() == 0, "\(login.output)")
        #expect(login.output.contains("Granted: public_profile, publish_actions\n"))

        let posted = try await CLIProcess.run(
            ["graph", "POST", "me/feed", "-f", "message=hello from the CLI", "--json"] + common)
        #expect(posted.status == 0, "\(posted.stderr)")
        let id = try #require((posted.json as? [String: Any])?["id"] as? String)
        let read = try await CLIProcess.run(["graph", id, "-f", "fields=message,privacy{value}", "--json"] + common)
        #expect(read.stdout == #"{"message":"hello from the CLI","privacy":{"value":"SELF"}}"# + "\n")

        // The feed dialog.
        let (feed, feedURL) = try await Self.startDialog(
            ["feed", "--link", "https://example.com/game", "--title", "My game"] + common)
        #expect(feedURL.contains("/v27.0/dialog/feed?"))
        let page = try await runPython(
            interopScript("browser_dialog.py"),
            [feedURL, "alice@gatehouse.test", "alice-gatehouse", "post", "Look!", "everyone"]
        ).output
        #expect(page.contains("loopback page: 200"), "\(page)")
        #expect(try await feed.waitForExit() == 0, "\(feed.output)")
        let postLine = try #require(feed.output.split(separator: "\n").first { $0.hasPrefix("Posted ") })
        let postID = String(postLine.dropFirst("Posted ".count).dropLast())
        let timeline = try await CLIProcess.run(
            ["graph", "me/feed", "-f", "fields=id,message,link", "--json"] + common)
        #expect(
            timeline.stdout.contains(#"{"id":"\#(postID)","message":"Look!","link":"https://example.com/game"}"#),
            "\(timeline.stdout)")

        // A cancelled feed dialog exits 2.
        let (cancelled, cancelURL) = try await Self.startDialog(["feed", "--link", "https://example.com"] + common)
        _ = try await runPython(
            interopScript("browser_dialog.py"), [cancelURL, "alice@gatehouse.test", "alice-gatehouse", "cancel"])
        #expect(try await cancelled.waitForExit() == 2)

        // The requests dialog to every friend; Bob sees his copy.
        let (requests, requestsURL) = try await Self.startDialog(
            ["apprequests", "--message", "Come play", "--data", "level=3"] + common)
        _ = try await runPython(
            interopScript("browser_dialog.py"), [requestsURL, "alice@gatehouse.test", "alice-gatehouse", "send"])
        #expect(try await requests.waitForExit() == 0, "\(requests.output)")
        #expect(requests.output.contains("Sent request "))

        let bobCommon = ["--data-dir", data, "--cache-dir", bobCache]
        let (bobLogin, bobURL) = try await CLILoginTests.startLogin(bobCommon)
        _ = try await CLILoginTests.browse(bobURL, "bob@gatehouse.test", "bob-gatehouse", ["grant"])
        #expect(try await bobLogin.waitForExit() == 0)
        let inbox = try await CLIProcess.run(["graph", "me/apprequests", "--json"] + bobCommon)
        #expect(inbox.stdout.contains(#""message":"Come play","data":"level=3""#), "\(inbox.stdout)")
        #expect(inbox.stdout.contains(#""from":{"name":"Alice Anders""#))

        // The admin view of the app's activity.
        let appID = try #require(server.seed?.app.id)
        let activity = try await CLIProcess.run(["apps", "activity", appID, "--data-dir", data])
        #expect(activity.status == 0, "\(activity.stderr)")
        #expect(activity.stdout.contains("everyone  \"Look!\" https://example.com/game"), "\(activity.stdout)")
        #expect(activity.stdout.contains("only_me  \"hello from the CLI\""), "\(activity.stdout)")
        #expect(
            activity.stdout.contains("Alice Anders → Bob Brown  \"Come play\"  data: level=3"), "\(activity.stdout)")

        let unknown = try await CLIProcess.run(["dialog", "share"] + common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "gatehouse: unknown dialog share: use feed or apprequests\n")
    }
}
