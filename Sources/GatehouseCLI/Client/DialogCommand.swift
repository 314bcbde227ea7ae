import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit
import GatehouseKitLoopback
import GatehouseProtocol

/// `gatehouse dialog feed|apprequests …`: shows an app-initiated dialog in the browser (loopback redirect, like
/// `gatehouse login`) and prints what it returned: the new post's id, or the request id and its recipients.
struct DialogCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dialog",
        abstract: "Show the feed or requests dialog in the browser and print its result.",
        discussion: """
            gatehouse dialog feed --link https://example.com --name "My game"
            gatehouse dialog apprequests --message "Come play" [--to ID,ID] [--data level=3]
            Exit status: 0 completed, 1 failed, 2 cancelled, 3 server unreachable.
            """)

    @Argument(help: "feed or apprequests.") var name: String
    @Option(help: "feed: the link to attach.") var link: String?
    @Option(help: "feed: the link's title (`name`).") var title: String?
    @Option(help: "feed: a caption under the title.") var caption: String?
    @Option(help: "feed: a description of the link.") var description: String?
    @Option(help: "feed: a picture URL.") var picture: String?
    @Option(help: "apprequests: the message (required).") var message: String?
    @Option(help: "apprequests: comma-separated app-scoped ids; omit to pick friends in the dialog.") var to: String?
    @Option(help: "apprequests: data returned to the app with the request.") var data: String?
    @Flag(name: .customLong("no-browser"), help: "Only print the dialog URL; open it yourself.") var noBrowser = false
    @Option(help: "Seconds to wait for the browser (default 300).") var timeout: Int = 300
    @OptionGroup var client: ClientOptions

    func execute() async throws {
        let environment = try client.installEnvironment()
        let browser: any BrowserOpening = noBrowser ? PrintOnlyBrowser() : SystemBrowserOpener()
        let presenter = LoopbackLoginPresenter(browser: browser, timeout: .seconds(timeout))
        let dialog: WebDialog
        switch name {
        case "feed":
            var parameters: [String: String] = [:]
            for (key, value) in [
                ("link", link), ("name", title), ("caption", caption), ("description", description),
                ("picture", picture),
            ] {
                if let value { parameters[key] = value }
            }
            dialog = WebDialog.feed(parameters, presenter: presenter, environment: environment)
        case "apprequests":
            guard let message else { throw exitWith(ClientExit.failed, "the requests dialog needs --message") }
            dialog = WebDialog.appRequests(
                message: message, to: to.map(scopeList) ?? [], data: data, presenter: presenter,
                environment: environment)
        default:
            throw exitWith(ClientExit.failed, "unknown dialog \(name): use feed or apprequests")
        }
        switch await dialog.present() {
        case .cancelled:
            throw exitWith(ClientExit.cancelled, "dialog cancelled: nothing was posted or sent")
        case .failed(let error as WebDialogError):
            throw exitWith(ClientExit.failed, "the dialog failed: \(error.message) (error_code \(error.code))")
        case .failed(let error):
            throw await clientFailure(
                error, server: environment.settings.serverURL, trust: try client.trustOptions.trust())
        case .completed(let results):
            if client.json {
                try printJSON(
                    DialogJSON(
                        post_id: results.postID, request: results.requestID,
                        to: results.requestID == nil ? nil : results.recipients))
            } else if let post = results.postID {
                print("Posted \(post).")
            } else if let request = results.requestID {
                print("Sent request \(request) to \(results.recipients.joined(separator: ", ")).")
            }
        }
    }
}

struct DialogJSON: Encodable {
    var post_id: String?
    var request: String?
    var to: [String]?
}
