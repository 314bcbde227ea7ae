import Foundation

/// The rest of Facebook's `GraphRequest` initialisers (FBSDKGraphRequest.h), with their Swift labels, so
/// every spelling an app uses compiles. Each fills in what Facebook's does: the current token, GET,
/// `Settings.graphAPIVersion`, no flags.
extension GraphRequest {
    private static var currentToken: String? { GatehouseKitEnvironment.current.currentAccessToken?.tokenString }

    public convenience init(graphPath: String, useAlternativeDefaultDomainPrefix: Bool) {
        self.init(
            graphPath: graphPath, parameters: ["fields": ""], tokenString: Self.currentToken, version: nil,
            httpMethod: .get, flags: [], useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(graphPath: String, httpMethod: HTTPMethod) {
        self.init(graphPath: graphPath, parameters: [:], httpMethod: httpMethod)
    }

    public convenience init(graphPath: String, parameters: [String: Any], useAlternativeDefaultDomainPrefix: Bool) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: Self.currentToken, version: nil,
            httpMethod: .get, flags: [], useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any], httpMethod: HTTPMethod,
        useAlternativeDefaultDomainPrefix: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: Self.currentToken, version: nil,
            httpMethod: httpMethod, flags: [], useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any], tokenString: String?, version: String?,
        httpMethod: HTTPMethod, forAppEvents: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: version,
            httpMethod: httpMethod, flags: [], forAppEvents: forAppEvents)
    }

    /// Facebook's designated initialiser.
    public convenience init(
        graphPath: String, parameters: [String: Any], tokenString: String?, version: String?,
        httpMethod: HTTPMethod, forAppEvents: Bool, useAlternativeDefaultDomainPrefix: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: version,
            httpMethod: httpMethod, flags: [], forAppEvents: forAppEvents,
            useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any]?, flags: GraphRequestFlags,
        useAlternativeDefaultDomainPrefix: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: Self.currentToken, version: nil,
            httpMethod: .get, flags: flags, useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, httpMethod: HTTPMethod?,
        flags: GraphRequestFlags, useAlternativeDefaultDomainPrefix: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: nil,
            httpMethod: httpMethod ?? .get, flags: flags,
            useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, httpMethod: HTTPMethod?,
        flags: GraphRequestFlags, forAppEvents: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: nil,
            httpMethod: httpMethod ?? .get, flags: flags, forAppEvents: forAppEvents)
    }

    public convenience init(
        graphPath: String, parameters: [String: Any]?, tokenString: String?, httpMethod: HTTPMethod?,
        flags: GraphRequestFlags, forAppEvents: Bool, useAlternativeDefaultDomainPrefix: Bool
    ) {
        self.init(
            graphPath: graphPath, parameters: parameters, tokenString: tokenString, version: nil,
            httpMethod: httpMethod ?? .get, flags: flags, forAppEvents: forAppEvents,
            useAlternativeDefaultDomainPrefix: useAlternativeDefaultDomainPrefix)
    }

    /// Facebook's Swift spelling of ``setGraphErrorRecoveryDisabled(_:)`` (`NS_SWIFT_NAME(setGraphErrorRecovery(disabled:))`).
    public func setGraphErrorRecovery(disabled: Bool) {
        setGraphErrorRecoveryDisabled(disabled)
    }
}
