import Foundation
import GatehouseKit

/// A dialog that answers every login with a callback built from the dialog URL, as the server's dialog
/// would after the person granted or cancelled. Only public GatehouseKit API, like an app's own test double.
final class AnsweringDialog: LoginDialogPresenting, @unchecked Sendable {
    enum Answer { case grant(userID: String, granted: [String], declined: [String]), cancel }
    let appID: String
    let answer: Answer

    init(appID: String, answer: Answer) {
        self.appID = appID
        self.answer = answer
    }

    func prepare() async throws -> String { "fb\(appID)://authorize/" }

    func present(_ url: URL) async throws -> URL? {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let state = query.first { $0.name == "state" }?.value ?? ""
        var items = [URLQueryItem(name: "state", value: state)]
        switch answer {
        case .cancel:
            items += [URLQueryItem(name: "error", value: "access_denied")]
        case .grant(let userID, let granted, let declined):
            let signed = SignedRequest.make(
                payload: ["user_id": .string(userID), "issued_at": 1_750_000_000], secret: "unused")
            items += [
                URLQueryItem(name: "access_token", value: "EAA-ported"),
                URLQueryItem(name: "expires_in", value: "3600"),
                URLQueryItem(name: "granted_scopes", value: granted.joined(separator: ",")),
                URLQueryItem(name: "denied_scopes", value: declined.joined(separator: ",")),
                URLQueryItem(name: "signed_request", value: signed),
            ]
        }
        var callback = URLComponents(string: "fb\(appID)://authorize/")!
        callback.queryItems = items
        return callback.url
    }
}

enum PortingFixtures {
    static let appID = "424242"

    static func environment(cache: any TokenCaching = InMemoryTokenCache()) -> GatehouseKitEnvironment {
        let settings = Settings()
        settings.load(infoDictionary: [
            "FacebookAppID": appID, "FacebookClientToken": "ported-ct", "GatehouseServerURL": "http://127.0.0.1:9",
        ])
        return GatehouseKitEnvironment(settings: settings, tokenCache: cache)
    }

    /// Waits for `condition`, polling. The bound only ends a hang: at the start of a full run on two loaded cores,
    /// with hundreds of tests starting at once, the requests-dialog sample took over a minute (CI, twice) while
    /// its sibling tests, which wait for nothing, took 160 s.
    static func eventually(within bound: Duration = .seconds(600), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + bound
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}

/// Collects values delivered from completion handlers.
final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Value] = []
    var values: [Value] { lock.withLock { _values } }
    func add(_ value: Value) { lock.withLock { _values.append(value) } }
}
