/// The method a Graph call runs as, from the HTTP method and Facebook's `method` parameter.
///
/// A client that can send only `GET` or `POST` (JSONP, old libraries, proxies, Facebook's JavaScript SDK for
/// `DELETE`) names the method it means with `method=post`, `method=delete` or `method=get` (any case). Facebook
/// honours it on `GET` and `POST` alike. A `HEAD` is answered as its `GET` but never writes, so it takes only
/// `method=get`. Other HTTP methods ignore the parameter.
package enum GraphMethodOverride: Equatable, Sendable {
    /// Run the call as this method; `consumed` says the `method` parameter was read and is not a parameter of
    /// the call itself.
    case run(GraphMethod, consumed: Bool)
    /// Refuse with Facebook's "Unsupported `name` request" (code 100, subcode 33), as a request sent with that
    /// method is refused; `name` is the HTTP method or the parameter's value.
    case unsupported(String)

    /// - Parameters:
    ///   - sent: the HTTP method as sent (`GET`, `HEAD`, `POST`, …).
    ///   - parameter: the request's `method` parameter, if it has one.
    package static func resolve(sent: String, parameter: String?) -> GraphMethodOverride {
        let named = parameter.flatMap { $0.isEmpty ? nil : $0.uppercased() }
        switch sent {
        case "GET", "POST":
            guard let named else { return .run(GraphMethod(rawValue: sent)!, consumed: false) }
            guard let method = GraphMethod(rawValue: named) else { return .unsupported(named) }
            return .run(method, consumed: true)
        case "HEAD":
            guard let named else { return .run(.get, consumed: false) }
            return named == "GET" ? .run(.get, consumed: true) : .unsupported(sent)
        default:
            guard let method = GraphMethod(rawValue: sent) else { return .unsupported(sent) }
            return .run(method, consumed: false)
        }
    }
}
