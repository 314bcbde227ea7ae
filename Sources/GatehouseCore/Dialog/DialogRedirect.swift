import Foundation
import GatehouseProtocol

/// Builds the URL the dialog sends the browser back to.
///
/// Codes travel in the query with Facebook's `#_=_` appended; tokens travel in the fragment.
package enum DialogRedirect {
    package static func url(redirectURI: String, parameters: [(String, String)], inFragment: Bool) -> String {
        let encoded = FormEncoding.encode(parameters)
        if inFragment {
            let base =
                redirectURI.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
                ?? redirectURI
            return base + "#" + encoded
        }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return redirectURI + separator + encoded + "#_=_"
    }

    /// The redirect for a person who pressed Cancel.
    package static func cancelled(_ request: DialogRequest) -> String {
        var params: [(String, String)] = [
            ("error", "access_denied"), ("error_code", "200"), ("error_description", "Permissions error"),
            ("error_reason", "user_denied"),
        ]
        if let state = request.state { params.append(("state", state)) }
        return url(redirectURI: request.redirectURI, parameters: params, inFragment: request.responseType.usesFragment)
    }
}
