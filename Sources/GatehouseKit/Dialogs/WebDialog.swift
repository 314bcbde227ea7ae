import Foundation
import GatehouseProtocol

/// How an app-initiated web dialog ended (the seeds' `FBDialogDelegate`: `dialogDidComplete:`,
/// `dialog:didFailWithError:`, and a cancel).
public enum WebDialogResult: Sendable {
    /// The person confirmed: what the dialog returned (`post_id`, or `request` and `to`).
    case completed(WebDialogResults)
    /// The person pressed Cancel or left the dialog.
    case cancelled
    /// The dialog could not be shown, or the server answered with an error.
    case failed(any Error)
}

/// The parameters a completed dialog returned.
public struct WebDialogResults: Sendable, Equatable {
    /// Everything the redirect carried, query and fragment merged.
    public var parameters: [String: String]

    /// Creates results from the redirect's parameters.
    public init(parameters: [String: String]) { self.parameters = parameters }

    /// The feed dialog's new post, `{user id}_{post id}`.
    public var postID: String? { parameters["post_id"] }
    /// The requests dialog's request id.
    public var requestID: String? { parameters["request"] }
    /// The requests dialog's recipients, from `to[0]`, `to[1]`, …, in order.
    public var recipients: [String] {
        var out: [String] = []
        while let id = parameters["to[\(out.count)]"] { out.append(id) }
        return out
    }
}

/// A dialog that ended with `error_code`/`error_message` (Facebook's dialog errors).
public struct WebDialogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Facebook's `error_code`, e.g. 100 for a bad parameter.
    public var code: Int
    /// `error_message`.
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "dialog error \(code): \(message)" }
}

/// Hears how a ``WebDialog`` ended; the names follow today's `WebDialogDelegate` and the seeds' `FBDialogDelegate`.
public protocol WebDialogDelegate: AnyObject, Sendable {
    /// `dialogDidComplete:`: the person confirmed.
    func webDialog(_ dialog: WebDialog, didCompleteWithResults results: WebDialogResults)
    /// `dialog:didFailWithError:`.
    func webDialog(_ dialog: WebDialog, didFailWithError error: any Error)
    /// The person cancelled.
    func webDialogDidCancel(_ dialog: WebDialog)
}

/// An app-initiated web dialog: the feed dialog (post to the person's timeline) or the requests dialog (send
/// requests to friends), the seeds' `[facebook dialog:@"feed" andParams:… andDelegate:…]`.
///
/// The page is shown by the same presenter seam as the login dialog (`LoginDialogPresenting`): the app's URL
/// scheme by default, `LoopbackLoginPresenter` for command-line programs. The dialog URL is
/// `{dialogURL}/{version}/dialog/{name}?app_id=…&redirect_uri=…&display=touch&sdk=ios&…` with the app's parameters.
///
/// ```swift
/// let result = await WebDialog.feed(["link": "https://example.com", "name": "BlockHeadz"]).present()
/// if case .completed(let r) = result { print(r.postID!) }
/// ```
public final class WebDialog: @unchecked Sendable {
    /// `feed` or `apprequests`.
    public let name: String
    /// The app's parameters (`link`, `picture`, `name`, `caption`, `description`; or `message`, `to`, `data`, `title`).
    public let parameters: [String: String]
    /// Told how the dialog ended when it is shown with ``show()`` (not with ``present()``).
    public weak var delegate: (any WebDialogDelegate)?
    /// Shows the page and brings back its redirect.
    public let presenter: any LoginDialogPresenting
    private let fixedEnvironment: GatehouseKitEnvironment?

    /// - Parameters:
    ///   - presenter: nil means a `URLSchemeLoginPresenter` on the same environment.
    ///   - environment: nil means `GatehouseKitEnvironment.current` when shown.
    public init(
        name: String, parameters: [String: String] = [:], delegate: (any WebDialogDelegate)? = nil,
        presenter: (any LoginDialogPresenting)? = nil, environment: GatehouseKitEnvironment? = nil
    ) {
        self.name = name
        self.parameters = parameters
        self.delegate = delegate
        self.fixedEnvironment = environment
        self.presenter = presenter ?? URLSchemeLoginPresenter(environment: environment)
    }

    /// The feed dialog with the seeds' parameters (`link`, `picture`, `name`, `caption`, `description`).
    public static func feed(
        _ parameters: [String: String], presenter: (any LoginDialogPresenting)? = nil,
        environment: GatehouseKitEnvironment? = nil
    ) -> WebDialog {
        WebDialog(name: "feed", parameters: parameters, presenter: presenter, environment: environment)
    }

    /// The requests dialog: `message` (required), `to` (comma-separated ids; omit for the friend picker), `data`, `title`.
    public static func appRequests(
        message: String, to recipients: [String] = [], data: String? = nil, title: String? = nil,
        presenter: (any LoginDialogPresenting)? = nil, environment: GatehouseKitEnvironment? = nil
    ) -> WebDialog {
        var parameters = ["message": message]
        if !recipients.isEmpty { parameters["to"] = recipients.joined(separator: ",") }
        if let data { parameters["data"] = data }
        if let title { parameters["title"] = title }
        return WebDialog(name: "apprequests", parameters: parameters, presenter: presenter, environment: environment)
    }

    /// The environment in use.
    public var environment: GatehouseKitEnvironment { fixedEnvironment ?? .current }

    /// Shows the dialog and tells the ``delegate`` how it ended.
    public func show() {
        Task {
            let result = await present()
            guard let delegate else { return }
            switch result {
            case .completed(let results): delegate.webDialog(self, didCompleteWithResults: results)
            case .cancelled: delegate.webDialogDidCancel(self)
            case .failed(let error): delegate.webDialog(self, didFailWithError: error)
            }
        }
    }

    /// Shows the dialog and returns how it ended (the async form of ``show()``). Cancelling the task cancels the dialog.
    public func present() async -> WebDialogResult {
        let settings = environment.settings
        guard let appID = settings.appID, !appID.isEmpty else {
            return .failed(CoreError(.invalidArgument, message: "Settings.appID (FacebookAppID) is not set"))
        }
        if let problem = Self.problem(name: name, parameters: parameters) {
            return .failed(CoreError(.invalidArgument, message: problem))
        }
        do {
            let redirectURI = try await presenter.prepare()
            let url = Self.url(
                base: settings.dialogURL, version: settings.graphAPIVersion, name: name, appID: appID,
                redirectURI: redirectURI,
                parameters: parameters)
            guard let callback = try await presenter.present(url), !Task.isCancelled else { return .cancelled }
            return Self.interpret(callback)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(error)
        }
    }

    /// What the SDK refuses before showing anything: unknown dialogs, and a requests dialog without a message.
    static func problem(name: String, parameters: [String: String]) -> String? {
        switch name {
        case "feed": return nil
        case "apprequests":
            return (parameters["message"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
                ? "the requests dialog needs a message" : nil
        default: return "unknown dialog \(name); Gatehouse serves feed and apprequests"
        }
    }

    /// The dialog URL, parameters sorted by key as the SDK sends them.
    public static func url(
        base: URL, version: String, name: String, appID: String, redirectURI: String, parameters: [String: String]
    ) -> URL {
        var all = parameters
        all["app_id"] = appID
        all["redirect_uri"] = redirectURI
        all["display"] = "touch"
        all["sdk"] = "ios"
        var root = base.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        let query = FormEncoding.encode(all.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return URL(string: root + "/" + version + "/dialog/" + name + "?" + query)!
    }

    /// Reads the redirect: `error_code` 4201 is a cancel, any other error a failure, anything else completion.
    public static func interpret(_ callback: URL) -> WebDialogResult {
        let params = LoginCallback.parameters(of: callback)
        if let raw = params["error_code"] {
            let code = Int(raw) ?? 0
            if code == 4201 { return .cancelled }
            return .failed(WebDialogError(code: code, message: params["error_message"] ?? "the dialog failed"))
        }
        if params["post_id"] == nil && params["request"] == nil { return .cancelled }
        return .completed(WebDialogResults(parameters: params))
    }
}
