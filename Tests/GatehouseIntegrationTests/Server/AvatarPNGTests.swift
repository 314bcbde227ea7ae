import ChildProcesses
import Foundation
import Testing
@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage

@Suite("PNG encoder and generated avatars", .tags(.process))
struct AvatarPNGTests {
    @Test func checksumsMatchPublishedVectors() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.crc32(Array("6789".utf8), continuing: PNGEncoder.crc32(Array("12345".utf8))) == 0xCBF4_3926)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.adler32([]) == 1)
        #expect(AvatarRenderer.fnv1a([]) == 0xCBF2_9CE4_8422_2325)
        #expect(AvatarRenderer.fnv1a(Array("a".utf8)) == 0xAF63_DC4C_8601_EC8C)
    }

    @Test func smallImageHasExactLayout() throws {
        let png = PNGEncoder.encode(width: 1, height: 1, rgb: [10, 20, 30])
        #expect(png.count == 72)  // 8 signature + 25 IHDR + 27 IDAT + 12 IEND
        #expect(Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[8..<29]) == [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])
        let chunks = try Self.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(chunks[1].data == [0x78, 0x01, 0x01, 0x04, 0x00, 0xFB, 0xFF, 0, 10, 20, 30, 0x00, 0x68, 0x00, 0x3D])
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    @Test func pythonZlibDecodesPixelsExactly() async throws {
        let rgb: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 1, 2, 3, 4, 5, 6]
        let report = try await Self.validateWithPython(
            PNGEncoder.encode(width: 3, height: 2, rgb: rgb), dumpPixels: true)
        #expect(report == "3 2 20 IHDR,IDAT,IEND ff000000ff000000ffffffff010203040506")
    }

    @Test func largeImagesSpanSeveralStoredBlocks() async throws {
        let (width, height) = (200, 200)  // 120,200 bytes of scanlines: one full block and one of 54,665
        let rgb = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
        let png = PNGEncoder.encode(width: width, height: height, rgb: rgb)
        let idat = try Self.chunks(png)[1].data
        let expectedLength: Int = 2 + 2 * 5 + 120_200 + 4  // zlib header, two stored-block headers, scanlines, Adler-32
        #expect(idat.count == expectedLength)
        #expect(Array(idat[2..<7]) == [0x00, 0xFF, 0xFF, 0x00, 0x00])
        #expect(Array(idat[(7 + 65_535)..<(12 + 65_535)]) == [0x01, 0x89, 0xD5, 0x76, 0x2A])
        #expect(try await Self.validateWithPython(png) == "200 200 120200 IHDR,IDAT,IEND")
        #expect(try Self.inflateStored(idat) == Self.scanlines(width: width, height: height, rgb: rgb))
    }

    @Test func scanlinesFillingExactlyOneBlockStayInOne() async throws {
        let (width, height) = (28, 771)  // 771 rows × 85 bytes = 65,535
        let png = PNGEncoder.encode(width: width, height: height, rgb: [UInt8](repeating: 7, count: width * height * 3))
        let idat = try Self.chunks(png)[1].data
        let expectedLength: Int = 2 + 5 + 65_535 + 4  // zlib header, one stored-block header, scanlines, Adler-32
        #expect(idat.count == expectedLength)
        #expect(Array(idat[2..<7]) == [0x01, 0xFF, 0xFF, 0x00, 0x00])
        #expect(try await Self.validateWithPython(png) == "28 771 65535 IHDR,IDAT,IEND")
    }

    @Test(arguments: [(64, 64), (1, 16), (5_000, 1_024), (100, 100)])
    func avatarsDecodeAtClampedSizes(requested: Int, side: Int) async throws {
        let png = AvatarRenderer.render(seed: "100004567890123", initials: "JD", size: requested)
        #expect(
            Array(png[16..<24]) == [
                0, 0, UInt8(side >> 8), UInt8(side & 0xFF), 0, 0, UInt8(side >> 8), UInt8(side & 0xFF),
            ])
        #expect(try await Self.validateWithPython(png) == "\(side) \(side) \(side * (1 + 3 * side)) IHDR,IDAT,IEND")
    }

    @Test func avatarsAreDeterministicPerSeed() {
        let first = AvatarRenderer.render(seed: "100004567890123", initials: "JD", size: 96)
        #expect(AvatarRenderer.render(seed: "100004567890123", initials: "JD", size: 96) == first)
        #expect(AvatarRenderer.render(seed: "100004567890124", initials: "JD", size: 96) != first)
        #expect(AvatarRenderer.render(seed: "100004567890123", initials: "jd", size: 96) == first)
        // Only A–Z have glyphs, and only the first two letters are drawn.
        #expect(
            AvatarRenderer.render(seed: "s", initials: "é1 ", size: 32)
                == AvatarRenderer.render(seed: "s", initials: "", size: 32))
        #expect(
            AvatarRenderer.render(seed: "s", initials: "ABC", size: 32)
                == AvatarRenderer.render(seed: "s", initials: "A-B", size: 32))
    }

    @Test func seedsSpreadAcrossColoursAndPatterns() throws {
        let images = try (0..<20).map {
            try Self.pixels(AvatarRenderer.render(seed: "user\($0)", initials: "", size: 20))
        }
        #expect(Set(images).count == 20)
        #expect(Set(images.map { Array($0[0..<3]) }).count > 10)  // corner colours vary, not just patterns
    }

    @Test func patternIsMirroredAndTwoToned() throws {
        let side = 67  // not a multiple of 5, so cells have uneven widths
        let rgb = try Self.pixels(AvatarRenderer.render(seed: "mirror", initials: "", size: side))
        for y in 0..<side {
            for x in 0..<side {
                let left = (y * side + x) * 3, right = (y * side + side - 1 - x) * 3
                #expect(rgb[left..<(left + 3)] == rgb[right..<(right + 3)], "pixel (\(x), \(y))")
            }
        }
        let colours = Set(stride(from: 0, to: rgb.count, by: 3).map { Array(rgb[$0..<($0 + 3)]) })
        #expect(colours.count <= 2)
        #expect(!colours.contains([255, 255, 255]))
    }

    @Test func initialsAreDrawnInWhiteAtIntegerScale() throws {
        func whitePixels(_ initials: String, _ size: Int) throws -> Int {
            let rgb = try Self.pixels(AvatarRenderer.render(seed: "x", initials: initials, size: size))
            return stride(from: 0, to: rgb.count, by: 3).filter { rgb[$0..<($0 + 3)].allSatisfy { $0 == 255 } }.count
        }
        // Glyph A lights 18 font pixels and B 20; the scale is floor(0.55 × side / text width).
        #expect(try whitePixels("AB", 64) == 38 * 9)
        #expect(try whitePixels("A", 64) == 18 * 25)
        #expect(try whitePixels("AB", 16) == 38)
        #expect(try whitePixels("", 64) == 0)
    }

    @Test func hsvConversionHitsPrimaries() {
        #expect(AvatarRenderer.rgb(hue: 0, saturation: 255, value: 255) == [255, 0, 0])
        #expect(AvatarRenderer.rgb(hue: 120, saturation: 255, value: 255) == [0, 255, 0])
        #expect(AvatarRenderer.rgb(hue: 240, saturation: 255, value: 255) == [0, 0, 255])
        #expect(AvatarRenderer.rgb(hue: 300, saturation: 0, value: 200) == [200, 200, 200])
    }

    // MARK: - Helpers

    /// Walks the chunk list, checking each CRC with a bitwise CRC-32 independent of the encoder's table.
    private static func chunks(_ png: [UInt8]) throws -> [(type: String, data: [UInt8])] {
        var result: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset < png.count {
            let length = Int(bigEndian(png, offset))
            let typeAndData = Array(png[(offset + 4)..<(offset + 8 + length)])
            #expect(bigEndian(png, offset + 8 + length) == bitwiseCRC(typeAndData))
            result.append((String(decoding: typeAndData[0..<4], as: UTF8.self), Array(typeAndData[4...])))
            offset += 12 + length
        }
        try #require(offset == png.count)
        return result
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func bitwiseCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func scanlines(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)
            raw += rgb[(row * width * 3)..<((row + 1) * width * 3)]
        }
        return raw
    }

    /// Undoes stored deflate blocks only, which is all the encoder writes.
    private static func inflateStored(_ zlib: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var offset = 2
        while true {
            let header = zlib[offset]
            try #require(header & 0b110 == 0, "only stored blocks expected")
            let length = Int(zlib[offset + 1]) | Int(zlib[offset + 2]) << 8
            try #require(length ^ 0xFFFF == Int(zlib[offset + 3]) | Int(zlib[offset + 4]) << 8)
            out += zlib[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if header & 1 == 1 { break }
        }
        try #require(bigEndian(zlib, offset) == PNGEncoder.adler32(out) && offset + 4 == zlib.count)
        return out
    }

    /// The image's RGB bytes with the per-row filter bytes removed.
    private static func pixels(_ png: [UInt8]) throws -> [UInt8] {
        let all = try chunks(png)
        let width = Int(bigEndian(all[0].data, 0))
        let raw = try inflateStored(all[1].data)
        return stride(from: 0, to: raw.count, by: 1 + 3 * width).flatMap { raw[($0 + 1)..<($0 + 1 + 3 * width)] }
    }

    /// Decodes with CPython's zlib (a real inflater, which also verifies Adler-32) and checks every CRC.
    /// Returns "width height inflatedLength chunkTypes[ pixelHex]".
    private static func validateWithPython(_ png: [UInt8], dumpPixels: Bool = false) async throws -> String {
        let script = """
            import zlib,struct,sys
            d=open(sys.argv[1],'rb').read()
            assert d[:8]==b'\\x89PNG\\r\\n\\x1a\\n','signature'
            i=8;idat=b'';names=[]
            while i<len(d):
                n,=struct.unpack('>I',d[i:i+4]);t=d[i+4:i+8];body=d[i+8:i+8+n]
                assert zlib.crc32(t+body)==struct.unpack('>I',d[i+8+n:i+12+n])[0],'crc of '+t.decode()
                names.append(t.decode())
                if t==b'IHDR':
                    w,h,depth,ctype,comp,filt,lace=struct.unpack('>IIBBBBB',body)
                    assert (depth,ctype,comp,filt,lace)==(8,2,0,0,0),'IHDR fields'
                if t==b'IDAT': idat+=body
                i+=12+n
            raw=zlib.decompress(idat)
            assert len(raw)==h*(1+3*w),'length'
            assert all(raw[r*(1+3*w)]==0 for r in range(h)),'filter bytes'
            out=[str(w),str(h),str(len(raw)),','.join(names)]
            if sys.argv[2]=='1': out.append(b''.join(raw[r*(1+3*w)+1:(r+1)*(1+3*w)] for r in range(h)).hex())
            print(' '.join(out))
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        // A missing python3 throws here and fails the test.
        let done = try await ChildProcess.run("python3", arguments: ["-c", script, file.path, dumpPixels ? "1" : "0"])
        try #require(done.status == 0, "python3 rejected the PNG: \(done.standardError)")
        return done.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
