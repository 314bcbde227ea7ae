import ChildProcesses
import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import GatehouseProtocol
import GatehouseTesting
import GatehouseTestSupport
import Testing

/// Records what a `WebDialogDelegate` hears.
final class DialogDelegateLog: WebDialogDelegate, @unchecked Sendable {
    enum Event: Equatable { case completed(WebDialogResults), failed(String), cancelled }
    private let lock = NSLock()
    private var _events: [Event] = []
    var events: [Event] { lock.withLock { _events } }
    func webDialog(_ dialog: WebDialog, didCompleteWithResults results: WebDialogResults) {
        lock.withLock { _events.append(.completed(results)) }
    }
    func webDialog(_ dialog: WebDialog, didFailWithError error: any Error) {
        lock.withLock { _events.append(.failed("\(error)")) }
    }
    func webDialogDidCancel(_ dialog: WebDialog) { lock.withLock { _events.append(.cancelled) } }
}

/// The feed and requests dialogs through the SDK against a real `gatehouse serve`, the person played by `DialogPlayer`.
@Suite(.tags(.process)) struct LiveWebDialogTests {
    struct Rig {
        let server: LiveServer
        let environment: GatehouseKitEnvironment
        let presenter: DialogPlayerPresenter

        init() async throws {
            server = try await LiveServer()
            environment = LiveLogin.environment(server)
            presenter = DialogPlayerPresenter(server: server, user: server.users[0])
        }

        func feed(_ parameters: [String: String]) -> WebDialog {
            WebDialog.feed(parameters, presenter: presenter, environment: environment)
        }

        /// A token for `user` with `permissions`, through the login dialog (on an environment of its own: one
        /// environment holds one person's token).
        func token(for user: LiveServer.SeedUser, _ permissions: [String]) async throws -> AccessToken {
            presenter.user = user
            let manager = LoginManager(presenter: presenter, environment: LiveLogin.environment(server))
            return try #require(try await manager.logIn(permissions: permissions).token)
        }

        func graph(_ method: String, _ path: String, _ parameters: [String: String] = [:], token: AccessToken)
            async throws -> JSONValue
        {
            try await GraphTransport(environment: environment).send(
                method: method, path: path, parameters: parameters, tokenString: token.tokenString
            ).json ?? .null
        }
    }

    static let seedParameters = [
        "name": "Testing FacebookSampleApp Feed Dialog", "caption": "Using Feed Dialogs within iOS are great.",
        "description": "Click to check out my BlockHeadz game on the AppStore",
        "link": "http://itunes.apple.com/app/blockheadz/id386884355?mt=8#",
        "picture": "http://geniesoftstudios.com/blog/wp-content/uploads/2011/03/blockhead.png",
    ]

    @Test func feedDialogCompletesWithThePostID() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        rig.presenter.social = .post(message: "My new high score", audience: "everyone")
        guard case .completed(let results) = await rig.feed(Self.seedParameters).present() else {
            Issue.record("expected completed"); return
        }
        let postID = try #require(results.postID)
        let dialog = try #require(rig.presenter.dialogURLs.first)
        #expect(dialog.path == "/v27.0/dialog/feed")
        let query = LoginTest.query(dialog)
        #expect(query["app_id"] == rig.server.appID)
        #expect(query["redirect_uri"] == "fb\(rig.server.appID)://authorize/")
        #expect(query["display"] == "touch")
        #expect(query["link"] == Self.seedParameters["link"])
        #expect(
            rig.presenter.callbacks.first?.absoluteString == "fb\(rig.server.appID)://authorize/?post_id=\(postID)#_=_")

        // The app reads it back with the poster's token: the seeds' parameters and the chosen audience.
        let token = try await rig.token(for: rig.server.users[0], ["email"])
        #expect(postID.hasPrefix(token.userID + "_"))
        let post = try await rig.graph(
            "GET", postID, ["fields": "message,name,caption,link,picture,privacy{value}"], token: token)
        #expect(post["message"] == "My new high score")
        #expect(post["name"] == .string(Self.seedParameters["name"]!))
        #expect(post["link"] == .string(Self.seedParameters["link"]!))
        #expect(post["privacy"]?["value"] == "EVERYONE")
    }

    @Test func feedDialogCancelAndFailureReachTheDelegate() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let log = DialogDelegateLog()
        rig.presenter.social = .cancel
        let cancelled = rig.feed(["link": "https://example.com"])
        cancelled.delegate = log
        cancelled.show()
        // A bad link comes back as Facebook's dialog error; the SDK reports it as a failure.
        let failing = rig.feed(["link": "not a link"])
        failing.delegate = log
        // Bounded only so a failure ends; a loaded machine can take seconds over each dialog.
        let deadline = ContinuousClock.now + .seconds(600)
        while log.events.count < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        failing.show()
        while log.events.count < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(log.events == [.cancelled, .failed("dialog error 100: link URL is not properly formatted")])
        guard case .failed(let error) = await rig.feed(["link": "not a link"]).present() else {
            Issue.record("expected failed"); return
        }
        #expect(error as? WebDialogError == WebDialogError(code: 100, message: "link URL is not properly formatted"))
    }

    @Test func requestsDialogReachesTheFriendsWhoSeeAndDeleteIt() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let (alice, bob, carol) = (rig.server.users[0], rig.server.users[1], rig.server.users[2])
        let bobToken = try await rig.token(for: bob, [])
        let carolToken = try await rig.token(for: carol, [])
        let aliceToken = try await rig.token(for: alice, [])

        rig.presenter.user = alice
        rig.presenter.social = .send(to: nil)
        let dialog = WebDialog.appRequests(
            message: "invites you to check out some great stuff.", data: "gift=42", title: "Check this out",
            presenter: rig.presenter, environment: rig.environment)
        guard case .completed(let results) = await dialog.present() else { Issue.record("expected completed"); return }
        let requestID = try #require(results.requestID)
        #expect(results.recipients == [bobToken.userID, carolToken.userID])

        let inbox = try await rig.graph("GET", "me/apprequests", token: bobToken)
        let request = try #require(inbox["data"]?.arrayValue?.first)
        #expect(request["id"] == .string("\(requestID)_\(bobToken.userID)"))
        #expect(request["from"] == ["name": "Alice Anders", "id": .string(aliceToken.userID)])
        #expect(request["message"] == "invites you to check out some great stuff.")
        #expect(request["data"] == "gift=42")
        #expect(try await rig.graph("DELETE", "\(requestID)_\(bobToken.userID)", token: bobToken) == ["success": true])
        #expect(try await rig.graph("GET", "me/apprequests", token: bobToken) == ["data": []])
        #expect(try await rig.graph("GET", "me/apprequests", token: carolToken)["data"]?.arrayValue?.count == 1)
    }

    @Test func requestsDialogToOneFriendAndItsRefusals() async throws {
        let rig = try await Rig()
        defer { rig.server.stop() }
        let bobToken = try await rig.token(for: rig.server.users[1], [])
        rig.presenter.user = rig.server.users[0]
        rig.presenter.social = .send(to: nil)
        let one = WebDialog.appRequests(
            message: "your turn", to: [bobToken.userID], presenter: rig.presenter, environment: rig.environment)
        guard case .completed(let results) = await one.present() else { Issue.record("expected completed"); return }
        #expect(results.recipients == [bobToken.userID])
        // No message: refused before anything is shown.
        let shown = rig.presenter.dialogURLs.count
        guard
            case .failed(let error) = await WebDialog.appRequests(
                message: " ", presenter: rig.presenter, environment: rig.environment
            ).present()
        else {
            Issue.record("expected failed"); return
        }
        #expect(error as? CoreError == CoreError(.invalidArgument, message: "the requests dialog needs a message"))
        #expect(rig.presenter.dialogURLs.count == shown)
        rig.presenter.social = .cancel
        guard
            case .cancelled = await WebDialog.appRequests(
                message: "again", presenter: rig.presenter, environment: rig.environment
            ).present()
        else {
            Issue.record("expected cancelled"); return
        }
    }

    @Test func resultsAreReadLikeFacebooksDialogs() {
        let ok = WebDialog.interpret(URL(string: "fb1://authorize/?request=9&to%5B0%5D=1&to%5B1%5D=2#_=_")!)
        guard case .completed(let results) = ok else { Issue.record("expected completed"); return }
        #expect(results.requestID == "9")
        #expect(results.recipients == ["1", "2"])
        guard
            case .cancelled = WebDialog.interpret(
                URL(string: "fb1://authorize/?error_code=4201&error_message=User+canceled+the+Dialog+flow#_=_")!)
        else {
            Issue.record("expected cancelled"); return
        }
        guard case .cancelled = WebDialog.interpret(URL(string: "fb1://authorize/")!) else {
            Issue.record("expected cancelled"); return
        }
        let url = WebDialog.url(
            base: URL(string: "http://h:1/")!, version: "v27.0", name: "feed", appID: "7",
            redirectURI: "fb7://authorize/", parameters: ["link": "https://x/?a=1&b=2"])
        #expect(
            url.absoluteString
                == "http://h:1/v27.0/dialog/feed?app_id=7&display=touch&link=https%3A%2F%2Fx%2F%3Fa%3D1%26b%3D2&"
                + "redirect_uri=fb7%3A%2F%2Fauthorize%2F&sdk=ios"
        )
    }
}
