import Foundation
import GatehouseProtocol

/// Facebook Login for Devices (Facebook's `DeviceLoginManager`): for TVs and terminals without a browser.
///
/// `start()` asks the server for a code (`POST device/login` with `APPID|CLIENT_TOKEN`), hands it to the
/// delegate to show, then polls `device/login_status` every `interval` seconds until the person has entered
/// the code at the verification URL and consented. The token is then completed with the person's id and
/// permissions (`me?fields=id,permissions`), made `AccessToken.current`, and reported to the delegate.
/// Pending and too-fast answers keep it polling; an expired or declined code ends it as cancelled.
public final class DeviceLoginManager: @unchecked Sendable {
    public weak var delegate: (any DeviceLoginManagerDelegate)?
    public let permissions: [String]
    /// Sent as `redirect_uri` when set (Facebook forwards the browser there after consent).
    public var redirectURL: URL?
    /// Facebook's smart login (discovery over the local network) is not offered by Gatehouse; the flag is kept for API parity.
    public let enableSmartLogin: Bool
    public let environment: GatehouseKitEnvironment

    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var cancelled = false

    public init(permissions: [String], enableSmartLogin: Bool, environment: GatehouseKitEnvironment = .current) {
        self.permissions = permissions
        self.enableSmartLogin = enableSmartLogin
        self.environment = environment
    }

    /// Starts the login; progress goes to the delegate.
    public func start() {
        let task = Task { [self] in
            let outcome: Result<DeviceLoginManagerResult, any Error>
            do {
                outcome = .success(
                    try await login { info in
                        self.delegate?.deviceLoginManager(self, startedWith: info)
                    })
            } catch {
                outcome = .failure(error)
            }
            guard !lock.withLock({ cancelled }) else { return }
            switch outcome {
            case .success(let result): delegate?.deviceLoginManager(self, completedWith: result, error: nil)
            case .failure(let error): delegate?.deviceLoginManager(self, completedWith: nil, error: error)
            }
        }
        lock.withLock { self.task = task }
    }

    /// Stops polling. As in Facebook's SDK the delegate hears nothing more.
    public func cancel() {
        let task: Task<Void, Never>? = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }

    /// The whole flow as one call: `started` gets the code to show; returns when the person finished.
    public func login(started: @Sendable (DeviceLoginCodeInfo) -> Void) async throws -> DeviceLoginManagerResult {
        let transport = GraphTransport(environment: environment)
        let settings = environment.settings
        guard let appID = settings.appID, let clientToken = settings.clientToken else {
            throw CoreError(.invalidArgument, message: "device login needs Settings.appID and Settings.clientToken")
        }
        let appToken = "\(appID)|\(clientToken)"
        var params = ["scope": permissions.joined(separator: ",")]
        if let redirectURL { params["redirect_uri"] = redirectURL.absoluteString }
        let startReply = try await transport.send(
            method: "POST", path: "device/login", parameters: params, tokenString: appToken)
        let body = try Self.checked(startReply)
        guard let code = body["code"]?.stringValue, let userCode = body["user_code"]?.stringValue,
            let uri = body["verification_uri"]?.stringValue.flatMap(URL.init(string:)),
            let expiresIn = body["expires_in"]?.intValue, let interval = body["interval"]?.intValue, interval > 0
        else {
            throw CoreError(
                .protocolMismatch,
                message: "device/login answered without code, user_code, verification_uri, expires_in and interval")
        }
        let info = DeviceLoginCodeInfo(
            identifier: code, loginCode: userCode, verificationURL: uri,
            expirationDate: environment.clock.now().addingTimeInterval(TimeInterval(expiresIn)),
            pollingInterval: UInt(interval))
        started(info)

        while true {
            try await Task.sleep(for: .seconds(Int(info.pollingInterval)))
            let reply = try await transport.send(
                method: "POST", path: "device/login_status", parameters: ["code": code], tokenString: appToken)
            if let error = GraphAPIError(body: reply.json ?? .null, httpStatusCode: reply.statusCode) {
                switch error.subcode.flatMap(DeviceLoginError.init(rawValue:)) {
                case .authorizationPending, .excessivePolling: continue
                case .codeExpired, .authorizationDeclined:
                    return DeviceLoginManagerResult(token: nil, isCancelled: true)
                case nil: throw error
                }
            }
            let status = try Self.checked(reply)
            guard let tokenString = status["access_token"]?.stringValue else {
                throw CoreError(.protocolMismatch, message: "device/login_status answered without access_token")
            }
            let token = try await completeToken(tokenString, status: status, appID: appID, transport: transport)
            environment.setCurrentAccessToken(token)
            return DeviceLoginManagerResult(token: token, isCancelled: false)
        }
    }

    /// Builds the `AccessToken` from the poll answer and `me?fields=id,permissions`.
    private func completeToken(_ tokenString: String, status: JSONValue, appID: String, transport: GraphTransport)
        async throws -> AccessToken
    {
        let me = try Self.checked(
            try await transport.send(
                method: "GET", path: "me", parameters: ["fields": "id,permissions"], tokenString: tokenString))
        guard let userID = me["id"]?.stringValue else {
            throw CoreError(.protocolMismatch, message: "me answered without id")
        }
        var granted: [String] = [], declined: [String] = [], expired: [String] = []
        if case .array(let list)? = me["permissions"]?["data"] {
            for entry in list {
                guard let name = entry["permission"]?.stringValue else { continue }
                switch entry["status"]?.stringValue {
                case "granted": granted.append(name)
                case "declined": declined.append(name)
                case "expired": expired.append(name)
                default: break
                }
            }
        }
        let now = environment.clock.now()
        let expiresIn = status["expires_in"]?.intValue ?? 0
        let dataAccess = status["data_access_expiration_time"]?.intValue
        return AccessToken(
            tokenString: tokenString, permissions: granted, declinedPermissions: declined, expiredPermissions: expired,
            appID: appID, userID: userID,
            expirationDate: expiresIn > 0 ? now.addingTimeInterval(TimeInterval(expiresIn)) : nil,
            refreshDate: now,
            dataAccessExpirationDate: dataAccess.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            loginType: .device)
    }

    /// The JSON body, or the Graph error it carries.
    static func checked(_ reply: GraphHTTPResponse) throws -> JSONValue {
        guard let json = reply.json else {
            throw CoreError(.protocolMismatch, message: "the server's reply is not JSON")
        }
        if let error = GraphAPIError(body: json, httpStatusCode: reply.statusCode) { throw error }
        return json
    }
}
