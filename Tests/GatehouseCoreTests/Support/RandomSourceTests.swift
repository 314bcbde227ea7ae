import Foundation
import GatehouseCore
import Testing

/// The helpers every id, secret and token is made with: the exact text a given byte stream gives (a seeded run
/// must repeat), and the system source's lengths.
@Suite struct RandomSourceTests {
    /// Hands out the given bytes in order, cycling.
    final class ScriptedBytes: RandomSource, @unchecked Sendable {
        let script: [UInt8]
        var next = 0
        init(_ script: [UInt8]) { self.script = script }
        func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                defer { next += 1 }
                return script[next % script.count]
            }
        }
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(ScriptedBytes([0x00, 0x0F, 0xA0, 0xFF]).hex(4) == "000fa0ff")
        #expect(ScriptedBytes([0x7]).hex(0) == "")
    }

    @Test func alphanumericMapsEachAcceptedByteAndRejectsTheTop() {
        // 192 bits need 33 characters; 248...255 are skipped so every character is equally likely.
        let text = ScriptedBytes([0, 1, 61, 62, 247, 248, 255]).alphanumeric()
        #expect(text.count == 33)
        #expect(text.hasPrefix("AB9A9AB9A9"))
        #expect(ScriptedBytes(Array(0...65)).alphanumeric() == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg")
    }

    @Test func uuidStringIsVersionFour() {
        let id = ScriptedBytes([0xFF]).uuidString()
        #expect(id == "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF")
    }

    @Test func timeOrderedUUIDsAreVersionSevenAndSortByTime() {
        let id = ScriptedBytes([0xFF]).timeOrderedUUIDString(at: Date(timeIntervalSince1970: 1_800_000_000.1234))
        // 1,800,000,000,123 ms is 0x01A3185C507B.
        #expect(id == "01A3185C-507B-7FFF-BFFF-FFFFFFFFFFFF")
        let random = SystemRandomSource()
        let times = (0..<50).map { Date(timeIntervalSince1970: 1_800_000_000 + Double($0) * 0.001) }
        let ids = times.map { random.timeOrderedUUIDString(at: $0) }
        #expect(ids == ids.sorted())
        #expect(
            ScriptedBytes([0]).timeOrderedUUIDString(at: Date(timeIntervalSince1970: -5)).hasPrefix("00000000-0000-7"))
    }

    @Test(arguments: [0, 1, 7, 8, 9, 16, 33, 66])
    func systemSourceGivesExactlyTheBytesAskedFor(count: Int) {
        #expect(SystemRandomSource().bytes(count).count == count)
    }

    @Test func systemSourceFillsEveryByte() {
        // A byte left unfilled would stay 0; across 64 draws of 9 bytes each position must see a non-zero value.
        var seen = [Bool](repeating: false, count: 9)
        for _ in 0..<64 {
            for (index, byte) in SystemRandomSource().bytes(9).enumerated() where byte != 0 { seen[index] = true }
        }
        #expect(seen.allSatisfy { $0 })
        let text = SystemRandomSource().alphanumeric(bits: 192)
        #expect(
            text.count == 33
                && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) })
        #expect(SystemRandomSource().hex(16).count == 32)
    }
}
