import GatehouseCore
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Keeps development mode on this machine.
///
/// Development mode logs anyone in without a password, opens the console and admin API (whose export holds app
/// secrets, password hashes and signing keys, and whose import can install an attacker's signing key). So:
/// - it listens on loopback only, unless `--dev-allow-remote` says otherwise (then a loud warning is logged);
/// - it answers only requests whose `Host` names loopback or the configured public URL (421 otherwise), so a
///   DNS-rebinding page in the developer's browser cannot drive the console on 127.0.0.1.
package enum DevelopmentExposure {
    /// Why development mode must not listen on the configured host; nil when it may.
    package static func refusal(_ c: GatehouseConfiguration) -> String? {
        guard c.isDevelopment, !isLoopback(c.host), !c.devAllowRemote else { return nil }
        return "development mode listens on loopback only, and host \(c.host) is reachable from the network. "
            + "Development mode lets anyone log in as anyone and opens the console, whose export holds secrets and signing keys. "
            + "Run a network-facing server with --mode production (see the README), or, on a network you trust, add --dev-allow-remote."
    }

    /// The warning logged when `--dev-allow-remote` lets development mode listen beyond loopback.
    package static func warning(_ c: GatehouseConfiguration) -> String? {
        guard c.isDevelopment, !isLoopback(c.host), c.devAllowRemote else { return nil }
        return
            "DEVELOPMENT MODE IS REACHABLE FROM THE NETWORK on \(c.host) (--dev-allow-remote): anyone who can connect can log in "
            + "as anyone and read every secret through the console. Never do this on a network you do not trust."
    }

    /// `localhost`, `*.localhost`, `127.0.0.0/8` and `::1` (brackets allowed).
    package static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        guard let bytes = IPRange.parse(name) else { return false }
        if bytes.count == 4 { return bytes[0] == 127 }
        return bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Whether a `Host` header value may reach a development server: loopback, or the public URL's host.
    package static func acceptsHost(_ value: String?, configuration c: GatehouseConfiguration) -> Bool {
        guard let value, let host = hostPart(value) else { return false }
        if isLoopback(host) { return true }
        guard let publicHost = URLComponents(string: c.baseURL)?.host?.lowercased() else { return false }
        let bare = publicHost.hasPrefix("[") ? String(publicHost.dropFirst().dropLast()) : publicHost
        return host == bare
    }

    /// The host of `host[:port]` or `[v6]:port`, lowercased; nil when malformed.
    static func hostPart(_ value: String) -> String? {
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "@" }) else { return nil }
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            return String(text[text.index(after: text.startIndex)..<end])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, !first.isEmpty else { return nil }
        return String(first)
    }
}
