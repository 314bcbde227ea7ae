import Foundation

/// SplitMix64: a small, fast generator whose whole sequence follows from one seed.
///
/// For tests and the emulator's reproducible runs only; it is not cryptographically strong.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A ``RandomSource`` that repeats: the same seed gives the same tokens, codes and ids in the same order.
///
/// Lets a test (or `GatehouseEmulator` with a seed) produce byte-identical state twice. Never use it to serve
/// real people: everything it makes is predictable from the seed.
package final class SeededRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SplitMix64

    package init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    package func bytes(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
