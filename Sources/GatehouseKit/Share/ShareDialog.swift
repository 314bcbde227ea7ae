import Foundation

/// A hashtag for shared content (Facebook's `Hashtag`): `#` followed by word characters.
public struct Hashtag: Sendable, Equatable {
    public let stringRepresentation: String
    public init(_ string: String) { stringRepresentation = string }
    /// Facebook's rule: starts with `#`, then at least one letter, digit or underscore and nothing else.
    public var isValid: Bool {
        stringRepresentation.first == "#" && stringRepresentation.count > 1
            && stringRepresentation.dropFirst().allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}

/// What a share or request dialog shares (Facebook's `SharingContent`); GatehouseKit has link content only.
public protocol SharingContent: Sendable {
    /// The dialog parameters this content sends.
    var dialogParameters: [String: String] { get }
}

/// A link to share on the person's timeline (Facebook's `ShareLinkContent`), shown by the feed dialog.
public final class ShareLinkContent: SharingContent, @unchecked Sendable {
    public var contentURL: URL?
    /// Text shown with the link.
    public var quote: String?
    public var hashtag: Hashtag?
    /// Facebook's `ref`, passed through as `ref`.
    public var ref: String?

    public init() {}

    /// `link`, `quote`, `hashtag`, `ref`: the feed dialog's names.
    public var dialogParameters: [String: String] {
        var parameters: [String: String] = [:]
        if let contentURL { parameters["link"] = contentURL.absoluteString }
        if let quote { parameters["quote"] = quote }
        if let hashtag { parameters["hashtag"] = hashtag.stringRepresentation }
        if let ref { parameters["ref"] = ref }
        return parameters
    }
}

/// Anything that shares (Facebook's `Sharing`).
public protocol Sharing: AnyObject {
    var delegate: (any SharingDelegate)? { get set }
    var shareContent: (any SharingContent)? { get set }
    /// Checks the content before showing; throws CoreError 2 when it cannot be shared.
    func validate() throws
}

/// Hears how a share ended (Facebook's `SharingDelegate`). Results are the dialog's parameters (`post_id`).
public protocol SharingDelegate: AnyObject {
    func sharer(_ sharer: any Sharing, didCompleteWithResults results: [String: Any])
    func sharer(_ sharer: any Sharing, didFailWithError error: any Error)
    func sharerDidCancel(_ sharer: any Sharing)
}

/// Facebook's `ShareDialog` as a thin form over the feed ``WebDialog``: the dialog always shows in the
/// browser (Facebook's `.browser`/`.web` modes); there is no native share sheet.
public final class ShareDialog: Sharing, @unchecked Sendable {
    /// Facebook's modes; every mode shows the web feed dialog here.
    public enum Mode: UInt, Sendable { case automatic, native, shareSheet, browser, web, feedBrowser, feedWeb }

    public weak var delegate: (any SharingDelegate)?
    public var shareContent: (any SharingContent)?
    public var mode: Mode = .automatic
    /// Carried for source compatibility; the presenter decides where the dialog shows.
    public weak var fromViewController: AnyObject?
    private let presenter: (any LoginDialogPresenting)?
    private let environment: GatehouseKitEnvironment?

    /// Facebook's initialiser.
    public init(
        viewController: AnyObject? = nil, content: (any SharingContent)? = nil, delegate: (any SharingDelegate)? = nil
    ) {
        fromViewController = viewController
        shareContent = content
        self.delegate = delegate
        presenter = nil
        environment = nil
    }

    /// GatehouseKit's addition: a dialog shown through `presenter` on `environment` (tests, command-line programs).
    public init(
        content: (any SharingContent)?, delegate: (any SharingDelegate)?, presenter: (any LoginDialogPresenting)?,
        environment: GatehouseKitEnvironment? = nil
    ) {
        shareContent = content
        self.delegate = delegate
        self.presenter = presenter
        self.environment = environment
    }

    /// Facebook's one-call form.
    @discardableResult
    public static func show(
        viewController: AnyObject? = nil, content: any SharingContent, delegate: (any SharingDelegate)?
    ) -> ShareDialog {
        let dialog = ShareDialog(viewController: viewController, content: content, delegate: delegate)
        dialog.show()
        return dialog
    }

    /// Whether the dialog can be shown: always, since it is a web dialog.
    public var canShow: Bool { true }

    /// Link content needs a `contentURL` with a scheme; a hashtag must be valid.
    public func validate() throws {
        guard let content = shareContent else { throw CoreError(.invalidArgument, message: "shareContent is nil") }
        if let link = content as? ShareLinkContent {
            if let hashtag = link.hashtag, !hashtag.isValid {
                throw CoreError(.invalidArgument, message: "invalid hashtag \(hashtag.stringRepresentation)")
            }
            guard link.contentURL?.scheme != nil else {
                throw CoreError(.invalidArgument, message: "contentURL is required")
            }
        }
    }

    /// Shows the feed dialog; false (and `sharer(_:didFailWithError:)`) when the content is invalid.
    @discardableResult
    public func show() -> Bool {
        do { try validate() } catch {
            delegate?.sharer(self, didFailWithError: error)
            return false
        }
        let dialog = WebDialog.feed(
            shareContent?.dialogParameters ?? [:], presenter: presenter, environment: environment)
        Task {
            let result = await dialog.present()
            MainThreadDelivery.deliver { [self] in
                switch result {
                case .completed(let results): delegate?.sharer(self, didCompleteWithResults: results.parameters)
                case .cancelled: delegate?.sharerDidCancel(self)
                case .failed(let error): delegate?.sharer(self, didFailWithError: error)
                }
            }
        }
        return true
    }
}
