import Foundation
import GatehouseProtocol

/// App-wide SDK configuration, as Facebook's `Settings`: app id, client token, display name, URL-scheme
/// suffix, Graph API version, and where the Gatehouse server is.
///
/// Values come from code, a JSON config file using the Info.plist key names (`FacebookAppID`,
/// `FacebookClientToken`, `FacebookDisplayName`, `FacebookUrlSchemeSuffix`, plus `GatehouseServerURL`),
/// or the environment (`GATEHOUSE_APP_ID`, `GATEHOUSE_CLIENT_TOKEN`, `GATEHOUSE_DISPLAY_NAME`,
/// `GATEHOUSE_URL_SCHEME_SUFFIX`, `GATEHOUSE_SERVER_URL`, `GATEHOUSE_GRAPH_API_VERSION`).
public final class Settings: @unchecked Sendable {
    /// The settings the `.current` statics and default initialisers use.
    public static var shared: Settings { GatehouseKitEnvironment.current.settings }

    private let lock = NSLock()
    private var _appID: String?
    private var _clientToken: String?
    private var _displayName: String?
    private var _appURLSchemeSuffix: String?
    private var _graphAPIVersion = GraphAPIVersion.current
    private var _serverURL = URL(string: "http://127.0.0.1:8080")!
    private var _dialogURL: URL?
    private var _isGraphErrorRecoveryEnabled = true
    private var _loggingBehaviors: Set<LoggingBehavior> = [.developerErrors]
    private var _isAdvertiserTrackingEnabled = false
    private var _isAutoLogAppEventsEnabled = true
    private var _isAdvertiserIDCollectionEnabled = true
    private var _dataProcessingOptions: [String: Any]?
    private var _registeredURLSchemes: [String]?

    public init() {}

    private func locked<T>(_ body: () -> T) -> T { lock.lock(); defer { lock.unlock() }; return body() }

    /// `FacebookAppID`.
    public var appID: String? {
        get { locked { _appID } }
        set { locked { _appID = newValue } }
    }
    /// `FacebookClientToken`: with the app id it makes the `APPID|CLIENT_TOKEN` token for anonymous calls.
    public var clientToken: String? {
        get { locked { _clientToken } }
        set { locked { _clientToken = newValue } }
    }
    /// `FacebookDisplayName`.
    public var displayName: String? {
        get { locked { _displayName } }
        set { locked { _displayName = newValue } }
    }
    /// `FacebookUrlSchemeSuffix`: the app's URL scheme is `fb{appID}{suffix}`.
    public var appURLSchemeSuffix: String? {
        get { locked { _appURLSchemeSuffix } }
        set { locked { _appURLSchemeSuffix = newValue } }
    }
    /// The Graph API version requests use, e.g. `v27.0`.
    public var graphAPIVersion: String {
        get { locked { _graphAPIVersion } }
        set { locked { _graphAPIVersion = newValue } }
    }
    /// The Gatehouse server's Graph base URL (Facebook's `graph.facebook.com`).
    public var serverURL: URL {
        get { locked { _serverURL } }
        set { locked { _serverURL = newValue } }
    }
    /// The base URL of the login dialog (Facebook's `m.facebook.com`); defaults to `serverURL`.
    public var dialogURL: URL {
        get { locked { _dialogURL ?? _serverURL } }
        set { locked { _dialogURL = newValue } }
    }
    /// The app's URL schemes (Info.plist `CFBundleURLTypes`), or nil when unknown (no Info.plist, and the
    /// configuration file lists none): a login is refused when they are known and lack `fb{appID}{suffix}`.
    public var registeredURLSchemes: [String]? {
        get { locked { _registeredURLSchemes } }
        set { locked { _registeredURLSchemes = newValue } }
    }

    /// Facebook's `persistableDataProcessingOptions`: what ``setDataProcessingOptions(_:country:state:)``
    /// stored (`data_processing_options`, `…_country`, `…_state`). Gatehouse sends no App Events, so nothing reads it.
    public var persistableDataProcessingOptions: [String: Any]? { locked { _dataProcessingOptions } }

    /// Facebook's Limited Data Use options (e.g. `["LDU"]`, country 0 and state 0 to let Facebook geolocate).
    public func setDataProcessingOptions(_ options: [String]?, country: Int32, state: Int32) {
        locked {
            _dataProcessingOptions = [
                "data_processing_options": options ?? [], "data_processing_options_country": country,
                "data_processing_options_state": state,
            ]
        }
    }

    /// When false, every Graph request behaves as if it had the `disableErrorRecovery` flag.
    public var isGraphErrorRecoveryEnabled: Bool {
        get { locked { _isGraphErrorRecoveryEnabled } }
        set { locked { _isGraphErrorRecoveryEnabled = newValue } }
    }

    /// Which kinds of log output the SDK may write; `[.developerErrors]` by default, as Facebook's.
    /// GatehouseKit writes no logs of its own yet, so this is kept for source compatibility only.
    public var loggingBehaviors: Set<LoggingBehavior> {
        get { locked { _loggingBehaviors } }
        set { locked { _loggingBehaviors = newValue } }
    }
    public func enableLoggingBehavior(_ behavior: LoggingBehavior) { locked { _ = _loggingBehaviors.insert(behavior) } }
    public func disableLoggingBehavior(_ behavior: LoggingBehavior) {
        locked { _ = _loggingBehaviors.remove(behavior) }
    }
    /// Facebook's ATT flag, which on iOS 17 sends classic logins to Limited Login. Gatehouse has no
    /// tracking and no Limited Login shim, so the value is stored and changes nothing.
    public var isAdvertiserTrackingEnabled: Bool {
        get { locked { _isAdvertiserTrackingEnabled } }
        set { locked { _isAdvertiserTrackingEnabled = newValue } }
    }
    /// `FacebookAutoLogAppEventsEnabled`. Gatehouse has no App Events: stored, changes nothing.
    public var isAutoLogAppEventsEnabled: Bool {
        get { locked { _isAutoLogAppEventsEnabled } }
        set { locked { _isAutoLogAppEventsEnabled = newValue } }
    }
    /// `FacebookAdvertiserIDCollectionEnabled`. Gatehouse collects no advertiser id: stored, changes nothing.
    public var isAdvertiserIDCollectionEnabled: Bool {
        get { locked { _isAdvertiserIDCollectionEnabled } }
        set { locked { _isAdvertiserIDCollectionEnabled = newValue } }
    }

    /// `fb{appID}{suffix}`, the scheme app callbacks arrive on.
    public var appURLScheme: String? { appID.map { "fb\($0)\(appURLSchemeSuffix ?? "")" } }

    /// Reads a JSON config file with Info.plist key names. Unknown keys are ignored.
    public func load(configFile url: URL) throws {
        let data = try Data(contentsOf: url)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CoreError(.invalidArgument, message: "\(url.path) is not a JSON object")
        }
        apply { key in object[key].map { "\($0)" } }
    }

    /// Reads `GATEHOUSE_*` environment variables that are set.
    public func loadFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        let map = [
            "FacebookAppID": "GATEHOUSE_APP_ID", "FacebookClientToken": "GATEHOUSE_CLIENT_TOKEN",
            "FacebookDisplayName": "GATEHOUSE_DISPLAY_NAME", "FacebookUrlSchemeSuffix": "GATEHOUSE_URL_SCHEME_SUFFIX",
            "GatehouseServerURL": "GATEHOUSE_SERVER_URL", "GatehouseDialogURL": "GATEHOUSE_DIALOG_URL",
            "FacebookGraphAPIVersion": "GATEHOUSE_GRAPH_API_VERSION",
        ]
        apply { key in map[key].flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 } }
    }

    func apply(_ value: (String) -> String?) {
        if let v = value("FacebookAppID") { appID = v }
        if let v = value("FacebookClientToken") { clientToken = v }
        if let v = value("FacebookDisplayName") { displayName = v }
        if let v = value("FacebookUrlSchemeSuffix") { appURLSchemeSuffix = v }
        if let v = value("GatehouseServerURL"), let url = URL(string: v) { serverURL = url }
        if let v = value("GatehouseDialogURL"), let url = URL(string: v) { dialogURL = url }
        if let v = value("FacebookGraphAPIVersion") { graphAPIVersion = v }
    }
}
