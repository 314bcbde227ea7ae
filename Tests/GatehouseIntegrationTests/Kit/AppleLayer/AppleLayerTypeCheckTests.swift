import Foundation
import Testing

/// The UIKit, AuthenticationServices and Keychain code in GatehouseKit is compiled by no Linux build and by no CI
/// run we can watch (`.github/workflows/apple.yml` needs a macOS runner). This suite type-checks it on every Linux
/// run against stubs of exactly the Apple API it uses (Tests/AppleStubs); see ``AppleLayerTypeCheck`` and
/// docs/TESTING.md. A stub is only as right as its copied signature, so the Apple build stays the final word.
@Suite struct AppleLayerTypeCheckTests {
    @Test func theAppleOnlyFilesTypeCheckAgainstTheStubbedFrameworks() async throws {
        let check = try AppleLayerTypeCheck.assemble()
        defer { check.remove() }
        let result = try await check.run()
        // `path:line:column: error: …`, once each (swiftc prints some twice), not the caret lines under the source.
        var seen = Set<Substring>()
        let errors = result.output.split(separator: "\n").filter { $0.contains(": error:") && seen.insert($0).inserted }
        // Without an `error:` line (a stub that did not compile, a crash) swiftc's whole output says why.
        #expect(result.status == 0, "\(errors.isEmpty ? result.output : errors.joined(separator: "\n"))")
    }
}
