import GatehouseCore
import Foundation
import NIOCore
// `sin_addr` and `sin6_addr` below: a release build (`-c release`) refuses them without this import
// (MemberImportVisibility); a debug build finds them through NIOCore.
#if canImport(CNIOLinux)
import CNIOLinux
#endif

/// An IPv4 or IPv6 address range written as `203.0.113.7`, `10.0.0.0/8` or `fd00::/8`.
package struct IPRange: Sendable, Equatable {
    let bytes: [UInt8]
    let prefixLength: Int

    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = IPRange.parse(first) else { return nil }
        let maxPrefix = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...maxPrefix).contains(prefix) else { return nil }
            prefixLength = prefix
        } else {
            prefixLength = maxPrefix
        }
        self.bytes = bytes
    }

    /// Whether `address` (textual) lies in the range. IPv4-mapped IPv6 addresses match IPv4 ranges.
    package func contains(_ address: String) -> Bool {
        guard var candidate = IPRange.parse(address) else { return false }
        if candidate.count == 16, bytes.count == 4, candidate.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
            candidate = Array(candidate.suffix(4))
        }
        guard candidate.count == bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(candidate, bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// Parses a textual IPv4/IPv6 address into network-order bytes.
    static func parse(_ text: String) -> [UInt8]? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty, let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }
}

/// Who the client really is and whether it used HTTPS, believing `X-Forwarded-*` only from trusted proxies.
package struct ForwardedClient: Sendable, Equatable {
    /// The client's IP address (the first untrusted hop from the right of `X-Forwarded-For`), or nil if unknown.
    package var ip: String?
    /// Whether the client's own connection was HTTPS.
    package var isHTTPS: Bool

    /// - Parameters:
    ///   - peer: the TCP peer's address.
    ///   - forwardedFor: the `X-Forwarded-For` header, if any.
    ///   - forwardedProto: the `X-Forwarded-Proto` header, if any.
    ///   - servesTLS: whether this connection itself is TLS.
    ///   - trusted: the configured proxy ranges.
    package static func resolve(
        peer: String?, forwardedFor: String?, forwardedProto: String?, servesTLS: Bool, trusted: [IPRange]
    ) -> ForwardedClient {
        func isTrusted(_ ip: String) -> Bool { trusted.contains { $0.contains(ip) } }
        guard let peer, isTrusted(peer) else { return ForwardedClient(ip: peer, isHTTPS: servesTLS) }
        // Walk X-Forwarded-For from the right: each trusted proxy appended the address it saw.
        var client = peer
        if let forwardedFor {
            let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for hop in hops.reversed() {
                guard IPRange.parse(hop) != nil else { break }
                client = hop
                if !isTrusted(hop) { break }
            }
        }
        // The proto the first (outermost) proxy saw is the leftmost value.
        let proto = forwardedProto?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased()
        return ForwardedClient(ip: client, isHTTPS: proto.map { $0 == "https" } ?? servesTLS)
    }
}
