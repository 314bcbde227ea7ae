import Foundation
import GatehouseKit
import GatehouseKitTestSupport
import Testing

/// Item 16: `ShareDialog`/`ShareLinkContent` and `GameRequestDialog`/`GameRequestContent` drive the feed and
/// requests web dialogs.
final class ShareRecorder: SharingDelegate, GameRequestDialogDelegate, @unchecked Sendable {
    let events = LoginRecorder<String>()
    func sharer(_ sharer: any Sharing, didCompleteWithResults results: [String: Any]) {
        events.record("done \(results["post_id"] ?? "-")")
    }
    func sharer(_ sharer: any Sharing, didFailWithError error: any Error) { events.record("failed \(error)") }
    func sharerDidCancel(_ sharer: any Sharing) { events.record("cancel") }
    func gameRequestDialog(_ gameRequestDialog: GameRequestDialog, didCompleteWithResults results: [String: Any]) {
        events.record("sent \(results["request"] ?? "-") to \(results["to[0]"] ?? "-")")
    }
    func gameRequestDialog(_ gameRequestDialog: GameRequestDialog, didFailWithError error: any Error) {
        events.record("failed \(error)")
    }
    func gameRequestDialogDidCancel(_ gameRequestDialog: GameRequestDialog) { events.record("cancel") }
}

@Suite struct ShareDialogTests {
    @Test func shareLinkContentShowsTheFeedDialogAndReportsThePost() async throws {
        let presenter = ScriptedLoginPresenter { url in URL(string: "fb\(LoginTest.appID)://authorize/#post_id=500_77")!
        }
        let content = ShareLinkContent()
        content.contentURL = URL(string: "https://example.com/game")
        content.quote = "Beat my score"
        content.hashtag = Hashtag("#blockheadz")
        let recorder = ShareRecorder()
        let dialog = ShareDialog(
            content: content, delegate: recorder, presenter: presenter, environment: LoginTest.environment())
        #expect(dialog.show())
        await recorder.events.waitFor(1)
        #expect(recorder.events.values == ["done 500_77"])
        let url = try #require(presenter.dialogURLs.first)
        #expect(url.path.hasSuffix("/dialog/feed"))
        let query = LoginTest.query(url)
        #expect(query["link"] == "https://example.com/game")
        #expect(query["quote"] == "Beat my score")
        #expect(query["hashtag"] == "#blockheadz")
    }

    @Test func invalidContentFailsBeforeAnyDialog() {
        let presenter = ScriptedLoginPresenter { _ in nil }
        let recorder = ShareRecorder()
        let noURL = ShareDialog(
            content: ShareLinkContent(), delegate: recorder, presenter: presenter, environment: LoginTest.environment())
        #expect(!noURL.show())
        let badTag = ShareLinkContent()
        badTag.contentURL = URL(string: "https://example.com")
        badTag.hashtag = Hashtag("no hash")
        #expect(throws: CoreError.self) {
            try ShareDialog(content: badTag, delegate: nil, presenter: presenter).validate()
        }
        #expect(presenter.dialogURLs.isEmpty)
        #expect(recorder.events.values.count == 1 && recorder.events.values[0].hasPrefix("failed CoreError 2"))
    }

    @Test func gameRequestShowsTheRequestsDialog() async throws {
        let presenter = ScriptedLoginPresenter { _ in
            URL(string: "fb\(LoginTest.appID)://authorize/?request=9&to%5B0%5D=42")!
        }
        let content = GameRequestContent()
        content.message = "Play with me"
        content.recipients = ["42"]
        content.title = "Invite"
        let recorder = ShareRecorder()
        let dialog = GameRequestDialog(
            content: content, delegate: recorder, presenter: presenter, environment: LoginTest.environment())
        #expect(dialog.show())
        await recorder.events.waitFor(1)
        #expect(recorder.events.values == ["sent 9 to 42"])
        let query = LoginTest.query(try #require(presenter.dialogURLs.first))
        #expect(query["message"] == "Play with me" && query["to"] == "42" && query["title"] == "Invite")
        let empty = GameRequestDialog(content: GameRequestContent(), delegate: recorder, presenter: presenter)
        #expect(!empty.show())
    }

    @Test func cancelledShareIsReportedAsCancel() async {
        let presenter = ScriptedLoginPresenter { _ in nil }
        let content = ShareLinkContent()
        content.contentURL = URL(string: "https://example.com")
        let recorder = ShareRecorder()
        ShareDialog(content: content, delegate: recorder, presenter: presenter, environment: LoginTest.environment())
            .show()
        await recorder.events.waitFor(1)
        #expect(recorder.events.values == ["cancel"])
    }
}
