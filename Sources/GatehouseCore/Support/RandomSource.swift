import Foundation

/// Where secrets, ids and tokens get their randomness. Injected so tests can be deterministic.
package protocol RandomSource: Sendable {
    /// `count` bytes of cryptographically strong randomness.
    func bytes(_ count: Int) -> [UInt8]
}

/// The operating system's CSPRNG.
package struct SystemRandomSource: RandomSource {
    package init() {}
    package func bytes(_ count: Int) -> [UInt8] {
        // Eight bytes per call: each `next()` is a system call (getrandom), and a token plus its id used to
        // make about eighty of them, one per byte.
        var generator = SystemRandomNumberGenerator()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < count {
                var word = generator.next()
                let take = min(8, count - offset)
                withUnsafeBytes(of: &word) {
                    buffer.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take)
                }
                offset += take
            }
        }
        return out
    }
}

extension RandomSource {
    /// A random (version 4) UUID, as `UUID().uuidString` would give: record ids come from the injected source so a
    /// seeded run repeats them.
    package func uuidString() -> String {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let u = UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
        return u.uuidString
    }

    /// A time-ordered (version 7, RFC 9562) UUID for `time`: its milliseconds since 1970 first, then random bits.
    /// Ids made one after another sort one after another, so a unique index on them grows at its end instead of
    /// reading and writing a random page of itself for each insert (the event stream's ids).
    package func timeOrderedUUIDString(at time: Date) -> String {
        var b = bytes(16)
        let milliseconds = UInt64(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)))
        for i in 0..<6 { b[i] = UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64(5 - i))) }
        b[6] = (b[6] & 0x0F) | 0x70
        b[8] = (b[8] & 0x3F) | 0x80
        let u = UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
        return u.uuidString
    }

    /// Lowercase hex of `byteCount` random bytes.
    package func hex(_ byteCount: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(byteCount * 2)
        for b in bytes(byteCount) {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A decimal id of `digits` digits that never starts with 0 (Facebook ids are 15-17 digits).
    package func numericID(digits: Int = 15) -> String {
        let raw = bytes(digits)
        var out = String(Character(Unicode.Scalar(UInt8(ascii: "1") + raw[0] % 9)))
        for b in raw.dropFirst() { out.append(Character(Unicode.Scalar(UInt8(ascii: "0") + b % 10))) }
        return out
    }

    /// Alphanumeric token text (A-Z a-z 0-9) carrying at least `bits` bits of entropy.
    package func alphanumeric(bits: Int = 192) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let count = Int((Double(bits) / log2(62.0)).rounded(.up))
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            for b in bytes(count * 2) where b < 248 {  // 248 = 62*4: rejection sampling keeps it uniform
                out.append(alphabet[Int(b) % 62])
                if out.count == count { break }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
