/// A minimal PNG writer: 8-bit truecolour (colour type 2), no interlacing, no compression.
///
/// Pixel data goes into stored deflate blocks, so files are about as large as the raw pixels.
/// That trade is deliberate: avatars are small, cached by clients, and this keeps Gatehouse free of
/// an image or compression dependency while every decoder still accepts the result.
package enum PNGEncoder {
    /// Encodes `rgb` (row-major, 3 bytes per pixel, no padding) as a complete PNG file.
    ///
    /// - Precondition: `width` and `height` are positive and `rgb.count == width * height * 3`.
    package static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(width > 0 && height > 0, "PNG dimensions must be positive")
        precondition(width <= Int(Int32.max) && height <= Int(Int32.max), "PNG dimensions exceed 2^31-1")
        precondition(rgb.count == width * height * 3, "rgb must hold width * height * 3 bytes")

        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // bit depth, colour type, compression, filter method, interlace

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(scanlines(width: width, height: height, rgb: rgb)), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// Prefixes each row with filter type 0 (None); filtering only pays off when compressing.
    private static func scanlines(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        let stride = width * 3
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (stride + 1))
        for row in 0..<height {
            raw.append(0)
            raw += rgb[(row * stride)..<((row + 1) * stride)]
        }
        return raw
    }

    /// A zlib stream (RFC 1950) wrapping stored deflate blocks (RFC 1951 §3.2.4).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        let maxBlock = 65_535  // LEN is 16 bits
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32K window, no dictionary; 0x7801 % 31 == 0
        out.reserveCapacity(data.count + data.count / maxBlock * 5 + 11)
        var offset = 0
        // `repeat` so empty input still produces the one final block a stream requires.
        repeat {
            let length = min(maxBlock, data.count - offset)
            let isFinal = offset + length == data.count
            out.append(isFinal ? 1 : 0)  // BFINAL bit, BTYPE 00; the rest of the byte is padding
            let len = UInt16(length)
            out += [UInt8(len & 0xFF), UInt8(len >> 8), UInt8(~len & 0xFF), UInt8(~len >> 8)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        out.appendBigEndian(adler32(data))
        return out
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        png.appendBigEndian(UInt32(data.count))
        png += typeBytes
        png += data
        png.appendBigEndian(crc32(data, continuing: crc32(typeBytes)))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (ISO 3309, as used by PNG and zlib). Pass a previous result as `crc` to continue it.
    static func crc32(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        let table = crcTable
        var c = ~crc
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }

    /// Adler-32 as zlib computes it.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        let modulus: UInt32 = 65_521
        // 5552 is the largest run for which `b` cannot overflow 32 bits before reducing.
        let run = 5_552
        var a: UInt32 = 1
        var b: UInt32 = 0
        var start = 0
        while start < bytes.count {
            for byte in bytes[start..<min(start + run, bytes.count)] {
                a &+= UInt32(byte)
                b &+= a
            }
            a %= modulus
            b %= modulus
            start += run
        }
        return b << 16 | a
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }
}
