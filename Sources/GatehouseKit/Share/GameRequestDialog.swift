import Foundation

/// What a game request sends (Facebook's `GameRequestContent`), shown by the requests dialog.
public final class GameRequestContent: @unchecked Sendable {
    /// Recipient ids; empty shows the friend picker.
    public var recipients: [String] = []
    public var message: String = ""
    public var title: String = ""
    /// App data returned with the request.
    public var data: String?

    public init() {}
}

/// Hears how a request dialog ended (Facebook's `GameRequestDialogDelegate`). Results carry `request` and `to[i]`.
public protocol GameRequestDialogDelegate: AnyObject {
    func gameRequestDialog(_ gameRequestDialog: GameRequestDialog, didCompleteWithResults results: [String: Any])
    func gameRequestDialog(_ gameRequestDialog: GameRequestDialog, didFailWithError error: any Error)
    func gameRequestDialogDidCancel(_ gameRequestDialog: GameRequestDialog)
}

/// Facebook's `GameRequestDialog` as a thin form over the requests ``WebDialog``.
public final class GameRequestDialog: @unchecked Sendable {
    public var content: GameRequestContent
    public weak var delegate: (any GameRequestDialogDelegate)?
    private let presenter: (any LoginDialogPresenting)?
    private let environment: GatehouseKitEnvironment?

    /// Facebook's initialiser. `presenter` and `environment` are GatehouseKit's additions.
    public init(
        content: GameRequestContent, delegate: (any GameRequestDialogDelegate)?,
        presenter: (any LoginDialogPresenting)? = nil, environment: GatehouseKitEnvironment? = nil
    ) {
        self.content = content
        self.delegate = delegate
        self.presenter = presenter
        self.environment = environment
    }

    /// Facebook's one-call form.
    @discardableResult
    public static func show(content: GameRequestContent, delegate: (any GameRequestDialogDelegate)?)
        -> GameRequestDialog
    {
        let dialog = GameRequestDialog(content: content, delegate: delegate)
        dialog.show()
        return dialog
    }

    /// Always true: the requests dialog is a web dialog.
    public var canShow: Bool { true }

    /// A message is required, as Facebook's validation requires it.
    public func validate() throws {
        if content.message.isEmpty {
            throw CoreError(.invalidArgument, message: "GameRequestContent.message is required")
        }
    }

    /// Shows the requests dialog; false (and `gameRequestDialog(_:didFailWithError:)`) when the content is invalid.
    @discardableResult
    public func show() -> Bool {
        do { try validate() } catch {
            delegate?.gameRequestDialog(self, didFailWithError: error)
            return false
        }
        let dialog = WebDialog.appRequests(
            message: content.message, to: content.recipients, data: content.data,
            title: content.title.isEmpty ? nil : content.title,
            presenter: presenter, environment: environment)
        Task {
            let result = await dialog.present()
            MainThreadDelivery.deliver { [self] in
                switch result {
                case .completed(let results):
                    delegate?.gameRequestDialog(self, didCompleteWithResults: results.parameters)
                case .cancelled: delegate?.gameRequestDialogDidCancel(self)
                case .failed(let error): delegate?.gameRequestDialog(self, didFailWithError: error)
                }
            }
        }
        return true
    }
}
