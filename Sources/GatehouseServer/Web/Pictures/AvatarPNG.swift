/// Generates the default profile picture for people who have not uploaded one.
///
/// The image is an identicon: a hue and a 5×5, left-right symmetric block pattern derived from
/// `seed`, with up to two initials drawn in white on top. Everything comes from a stable hash
/// (never `Hasher`, which is randomly seeded per process), so a URL always serves the same bytes
/// and HTTP caches and ETags stay valid across restarts.
package enum AvatarRenderer {
    /// Output side lengths are clamped into this range, mirroring the sizes Facebook will serve.
    package static let sizeRange = 16...1024

    /// Renders a `size`×`size` PNG (clamped to `sizeRange`) for `seed`, typically a user id.
    ///
    /// `initials` contributes its first two letters A–Z (case-insensitive); anything else is
    /// skipped because the built-in font has no glyphs for it.
    package static func render(seed: String, initials: String, size: Int) -> [UInt8] {
        let side = min(max(size, sizeRange.lowerBound), sizeRange.upperBound)
        let hash = mix(fnv1a(Array(seed.utf8)))
        let hue = Int(hash % 360)
        // Two close shades of one hue: the pattern stays visible without fighting the white initials,
        // and a value of ~70% keeps white text readable even on yellow.
        let background = rgb(hue: hue, saturation: 140, value: 180)
        let block = rgb(hue: hue, saturation: 170, value: 145)
        let pattern = hash >> 32  // 15 bits used: 5 rows × 3 distinct columns

        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        for y in 0..<side {
            let row = y * 5 / side
            for x in 0..<side {
                // Measuring from the nearer edge mirrors the pattern exactly, down to the pixel,
                // and yields only columns 0...2: columns 3 and 4 reuse the bits of 1 and 0.
                let column = min(x, side - 1 - x) * 5 / side
                let colour = pattern >> UInt64(row * 3 + column) & 1 == 1 ? block : background
                let offset = (y * side + x) * 3
                pixels[offset] = colour[0]
                pixels[offset + 1] = colour[1]
                pixels[offset + 2] = colour[2]
            }
        }
        drawInitials(initials, side: side, into: &pixels)
        return PNGEncoder.encode(width: side, height: side, rgb: pixels)
    }

    private static func drawInitials(_ initials: String, side: Int, into pixels: inout [UInt8]) {
        let glyphs = initials.unicodeScalars.compactMap(glyphIndex).prefix(2)
        guard !glyphs.isEmpty else { return }
        let textColumns = glyphs.count * 6 - 1  // 5 columns per glyph plus a 1-column gap
        // Integer scaling keeps the font crisp; the text spans at most ~55% of the side.
        let budget = side * 11 / 20
        let scale = max(1, min(budget / textColumns, budget / 7))
        let left = (side - textColumns * scale) / 2
        let top = (side - 7 * scale) / 2
        for (position, glyph) in glyphs.enumerated() {
            for row in 0..<7 {
                let bits = font[glyph * 7 + row]
                for column in 0..<5 where bits & (0b10000 >> column) != 0 {
                    let x0 = left + (position * 6 + column) * scale
                    let y0 = top + row * scale
                    for y in y0..<(y0 + scale) {
                        let start = (y * side + x0) * 3
                        for offset in start..<(start + scale * 3) { pixels[offset] = 255 }
                    }
                }
            }
        }
    }

    private static func glyphIndex(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x41...0x5A: Int(scalar.value - 0x41)
        case 0x61...0x7A: Int(scalar.value - 0x61)
        default: nil
        }
    }

    /// 64-bit FNV-1a: tiny and stable across platforms and releases.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// SplitMix64's finaliser; FNV's high bits barely change for seeds that differ only at the end.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Integer HSV → RGB (hue in degrees, saturation and value 0–255); no floating point, so
    /// every platform produces identical bytes.
    static func rgb(hue: Int, saturation s: Int, value v: Int) -> [UInt8] {
        let sector = hue / 60 % 6
        let fraction = hue % 60 * 255 / 60
        let p = v * (255 - s) / 255
        let q = v * (255 - s * fraction / 255) / 255
        let t = v * (255 - s * (255 - fraction) / 255) / 255
        let (r, g, b) =
            switch sector {
            case 0: (v, t, p)
            case 1: (q, v, p)
            case 2: (p, v, t)
            case 3: (p, q, v)
            case 4: (t, p, v)
            default: (v, p, q)
            }
        return [UInt8(r), UInt8(g), UInt8(b)]
    }

    /// A 5×7 bitmap font for A–Z: seven rows per letter, the high bit of each 5-bit row is the left pixel.
    private static let font: [UInt8] = [
        0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,  // A
        0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110,  // B
        0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110,  // C
        0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100,  // D
        0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111,  // E
        0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000,  // F
        0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111,  // G
        0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,  // H
        0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,  // I
        0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100,  // J
        0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001,  // K
        0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111,  // L
        0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001,  // M
        0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001,  // N
        0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,  // O
        0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000,  // P
        0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101,  // Q
        0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001,  // R
        0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110,  // S
        0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100,  // T
        0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,  // U
        0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100,  // V
        0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010,  // W
        0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001,  // X
        0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100,  // Y
        0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111,  // Z
    ]
}
