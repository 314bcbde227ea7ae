// A stub of Apple's AuthenticationServices for type-checking GatehouseKit's web authentication presenter on Linux
// (AppleLayerTypeCheckTests). It declares only what Sources/GatehouseKit uses, with the Swift signatures from the
// Apple documentation page named above each declaration. Nothing here runs: the bodies only satisfy the compiler.
import Foundation
import UIKit

/// On iOS the anchor is a window: https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
public typealias ASPresentationAnchor = UIWindow

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
@MainActor
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
open class ASWebAuthenticationSession: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)
    public init(
        url URL: URL, callbackURLScheme: String?,
        completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
    ) {}

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    open var prefersEphemeralWebBrowserSession: Bool = false

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    open func start() -> Bool { false }
}

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror
public struct ASWebAuthenticationSessionError: Error {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code-swift.property
    public var code: Code

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code-swift.enum
    public enum Code: Int, Sendable {
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code-swift.enum/canceledlogin
        case canceledLogin = 1
    }
}
