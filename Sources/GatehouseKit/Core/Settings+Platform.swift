import Foundation

/// A category of SDK log output (Facebook's `LoggingBehavior`), with Facebook's raw values.
public struct LoggingBehavior: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let accessTokens = LoggingBehavior(rawValue: "include_access_tokens")
    public static let performanceCharacteristics = LoggingBehavior(rawValue: "perf_characteristics")
    public static let appEvents = LoggingBehavior(rawValue: "app_events")
    public static let informational = LoggingBehavior(rawValue: "informational")
    public static let cacheErrors = LoggingBehavior(rawValue: "cache_errors")
    public static let uiControlErrors = LoggingBehavior(rawValue: "ui_control_errors")
    public static let graphAPIDebugWarning = LoggingBehavior(rawValue: "graph_api_debug_warning")
    public static let graphAPIDebugInfo = LoggingBehavior(rawValue: "graph_api_debug_info")
    public static let networkRequests = LoggingBehavior(rawValue: "network_requests")
    public static let developerErrors = LoggingBehavior(rawValue: "developer_errors")
}

/// Where settings come from on each platform, and Facebook's other commonly used `Settings` members.
extension Settings {
    /// Facebook's SDK version this API follows (`Settings.shared.sdkVersion`).
    public var sdkVersion: String { "18.1.0" }

    /// Applies Info.plist-style keys: `FacebookAppID`, `FacebookClientToken`, `FacebookDisplayName`,
    /// `FacebookUrlSchemeSuffix`, `GatehouseServerURL`, `GatehouseDialogURL`, `FacebookAutoLogAppEventsEnabled`,
    /// `FacebookAdvertiserIDCollectionEnabled`, `FacebookLoggingBehavior` (an array of raw values). Unknown keys are ignored.
    public func load(infoDictionary: [String: Any]) {
        apply { key in infoDictionary[key].map { "\($0)" } }
        if let value = Self.bool(infoDictionary["FacebookAutoLogAppEventsEnabled"]) {
            isAutoLogAppEventsEnabled = value
        }
        if let value = Self.bool(infoDictionary["FacebookAdvertiserIDCollectionEnabled"]) {
            isAdvertiserIDCollectionEnabled = value
        }
        if let names = infoDictionary["FacebookLoggingBehavior"] as? [String] {
            loggingBehaviors = Set(names.map(LoggingBehavior.init(rawValue:)))
        }
        if let types = infoDictionary["CFBundleURLTypes"] as? [[String: Any]] {
            registeredURLSchemes = types.flatMap { $0["CFBundleURLSchemes"] as? [String] ?? [] }
        }
    }

    /// Reads the platform's configuration, as Facebook's SDK reads Info.plist when it starts.
    ///
    /// Apple platforms: the main bundle's Info.plist. Linux and other platforms without an Info.plist: the
    /// JSON file named by `GATEHOUSE_CONFIG_FILE` (same key names), then `GATEHOUSE_*` variables, which win.
    public func loadPlatformDefaults(environment: [String: String] = ProcessInfo.processInfo.environment) {
        #if canImport(Darwin)
        if let info = Bundle.main.infoDictionary { load(infoDictionary: info) }
        // An Info.plist without CFBundleURLTypes registers no scheme: the login check must see that.
        if registeredURLSchemes == nil { registeredURLSchemes = [] }
        #else
        if let path = environment["GATEHOUSE_CONFIG_FILE"], !path.isEmpty,
            let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            load(infoDictionary: object)
        }
        #endif
        loadFromEnvironment(environment)
    }

    private static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let b as Bool: return b
        case let n as NSNumber: return n.boolValue
        case let s as String:
            return ["1", "true", "yes"].contains(s.lowercased())
                ? true : (["0", "false", "no"].contains(s.lowercased()) ? false : nil)
        default: return nil
        }
    }
}
