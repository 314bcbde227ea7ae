import GatehouseCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOHTTP1

/// Where app callbacks (deauthorize, data deletion, Webhooks) may go. An app's URL is chosen by whoever edits the
/// app, so without rules the server could be made to POST to itself, to the cloud metadata service or to the
/// internal network (server-side request forgery).
package struct CallbackDestinationRules: Sendable {
    /// Only `https://` URLs.
    package var requireHTTPS: Bool
    /// Refuse loopback, link-local, private, unique-local, carrier-grade NAT, multicast and unspecified addresses.
    package var refuseInternalAddresses: Bool
    /// Internal ranges the operator lets through all the same (`outbound.allowed_networks`): where their own
    /// receivers run. They do not lift ``requireHTTPS``.
    package var allowedNetworks: [IPRange]

    package init(requireHTTPS: Bool, refuseInternalAddresses: Bool, allowedNetworks: [IPRange] = []) {
        self.requireHTTPS = requireHTTPS
        self.refuseInternalAddresses = refuseInternalAddresses
        self.allowedNetworks = allowedNetworks
    }

    /// Production mode: https only, public addresses only.
    package static let production = CallbackDestinationRules(requireHTTPS: true, refuseInternalAddresses: true)
    /// Development mode: loopback callbacks are how people test them.
    package static let development = CallbackDestinationRules(requireHTTPS: false, refuseInternalAddresses: false)

    /// The rules for a configuration's mode, with its `outbound.allowed_networks`.
    package static func forMode(_ configuration: GatehouseConfiguration) -> CallbackDestinationRules {
        var rules: CallbackDestinationRules = configuration.isProduction ? .production : .development
        rules.allowedNetworks = configuration.outbound.allowedNetworks.compactMap { IPRange($0) }
        return rules
    }

    /// Why a request to `address` (already resolved) is refused, or nil when it may go.
    func refusal(of address: String) -> CallbackRefused? {
        guard refuseInternalAddresses, Self.isInternal(address),
            !allowedNetworks.contains(where: { $0.contains(address) })
        else { return nil }
        return CallbackRefused(
            description: "the callback host resolves to an internal address, which production mode refuses "
                + "unless outbound.allowed_networks includes it")
    }

    /// Ranges no production callback may reach (IPv4, IPv6, and IPv4 written inside IPv6).
    static let internalRanges: [IPRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "64:ff9b::/96", "64:ff9b:1::/48",
        "2002::/16",
    ].compactMap { IPRange($0) }

    /// Whether an address (textual) is internal. IPv4-mapped IPv6 addresses are judged as IPv4.
    package static func isInternal(_ address: String) -> Bool {
        internalRanges.contains { $0.contains(address) }
    }
}

/// Why a callback was not sent.
package struct CallbackRefused: Error, CustomStringConvertible, Sendable {
    package var description: String
}

/// The callback transport: a dedicated AsyncHTTPClient that **never follows redirects**, and that connects only to
/// an address it has checked against ``CallbackDestinationRules``.
///
/// The host is resolved here, the address checked, and the connection pinned to that very address
/// (`dnsOverride`), while TLS still verifies the certificate for the host name. So a DNS answer cannot swap in an
/// internal address between the check and the connection, and a redirect cannot lead anywhere.
package struct GuardedCallbackTransport: CallbackTransport, WebhookTransport {
    package var rules: CallbackDestinationRules
    package var timeout: TimeAmount
    /// Trust roots and verification; nil means the system's defaults (``OutboundTrust``: the system's roots and
    /// `outbound.ca_file`; tests pass a self-signed root).
    package var tlsConfiguration: TLSConfiguration?

    package init(
        rules: CallbackDestinationRules, timeout: TimeAmount = .seconds(10), tlsConfiguration: TLSConfiguration? = nil
    ) {
        self.rules = rules
        self.timeout = timeout
        self.tlsConfiguration = tlsConfiguration
    }

    package func post(url: String, form: String) async throws -> (status: Int, body: [UInt8]) {
        try await send(
            WebhookHTTPRequest(
                method: .POST, url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: form))
    }

    /// Sends one request to a checked, pinned address, never following a redirect: every callback and webhook
    /// request (a deauthorize form, a webhook's verification `GET`, its signed JSON) goes through here.
    package func send(_ message: WebhookHTTPRequest) async throws -> (status: Int, body: [UInt8]) {
        let url = message.url
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            var host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil
        else { throw CallbackRefused(description: "the callback URL is not an http(s) URL") }
        if rules.requireHTTPS, scheme != "https" {
            throw CallbackRefused(description: "callback URLs must be https:// in production mode")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        let address = try await Self.resolve(host, port: port)
        if let refused = rules.refusal(of: address) { throw refused }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        if let tlsConfiguration { configuration.tlsConfiguration = tlsConfiguration }
        configuration.dnsOverride = [host: address]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url)
            request.method = message.method
            for (name, value) in message.headers { request.headers.add(name: name, value: value) }
            request.headers.add(name: "User-Agent", value: "Gatehouse-Callbacks/1")
            if let body = message.body { request.body = .bytes(ByteBuffer(string: body)) }
            let response = try await client.execute(request, timeout: timeout)
            var body = try await response.body.collect(upTo: 64 * 1024)
            try await client.shutdown()
            return (Int(response.status.code), body.readBytes(length: body.readableBytes) ?? [])
        } catch {
            try? await client.shutdown()
            throw OutboundTrust.refusal(error) ?? error
        }
    }

    /// The address a connection to `host` would use (getaddrinfo, off the event loops), as text.
    static func resolve(_ host: String, port: Int) async throws -> String {
        if IPRange.parse(host) != nil { return host }
        let address = try await NIOThreadPool.singleton.runIfActive {
            try SocketAddress.makeAddressResolvingHost(host, port: port)
        }
        guard let ip = address.ipAddress else {
            throw CallbackRefused(description: "the callback host did not resolve")
        }
        return ip
    }
}
