import ChildProcesses
import Foundation
import GatehouseTestSupport

/// Type-checks GatehouseKit's Apple-only code (UIKit, AuthenticationServices, Security) on Linux.
///
/// No Apple SDK is installed here, so the check assembles a small package in a scratch folder:
///
/// ```
/// Sources/Security/Security.swift                       Tests/AppleStubs: Apple's API as GatehouseKit uses it,
/// Sources/UIKit/UIKit.swift                             each declaration naming its documentation page
/// Sources/AuthenticationServices/AuthenticationServices.swift
/// Sources/GatehouseKit/…                                a copy of Sources/GatehouseKit, plus AppleLayerProbe.swift
/// Modules/                                              the stubs, compiled
/// ```
///
/// then runs `swiftc -typecheck` on the GatehouseKit copy with the stub modules on the import path, so
/// `canImport(UIKit)`, `canImport(AuthenticationServices)` and `canImport(Security)` are true, and with
/// `-D GATEHOUSE_APPLE_STUBS` for the one guard that also says `!os(Linux)` (the Keychain cache). GatehouseKit's
/// dependencies (GatehouseProtocol, Crypto, X509) are the modules SwiftPM built for this test run, and their C
/// modules are found through the module maps in the package checkouts. swiftc rather than `swift build`: a package
/// build would compile swift-crypto from scratch. Copying the sources first means an edit saved mid-check cannot
/// make swiftc fail with "modified during the build".
struct AppleLayerTypeCheck {
    /// The stub modules in dependency order (AuthenticationServices imports UIKit).
    static let stubModules = ["Security", "UIKit", "AuthenticationServices"]

    let folder: ScratchDirectory
    let repository: URL
    let builtModules: URL
    let moduleMaps: [URL]

    var sources: URL { folder.url.appendingPathComponent("Sources") }
    var stubOutput: URL { folder.url.appendingPathComponent("Modules") }

    /// Finds what the check needs and copies the stubs and GatehouseKit's sources into a scratch folder.
    /// Throws (failing the test, never skipping it) when the build products are not where SwiftPM puts them.
    static func assemble(filePath: String = #filePath) throws -> AppleLayerTypeCheck {
        // Tests/GatehouseIntegrationTests/Kit/AppleLayer/AppleLayerTypeCheck.swift → the repository.
        let repository = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let builtModules = try findBuiltModules()
        let check = AppleLayerTypeCheck(
            folder: try ScratchDirectory.create("apple-layer"), repository: repository, builtModules: builtModules,
            moduleMaps: try moduleMaps(near: builtModules))
        try check.copySources()
        return check
    }

    /// Compiles the stubs, then type-checks the GatehouseKit copy. Returns swiftc's last result and everything it
    /// printed.
    func run() async throws -> (status: Int32, output: String) {
        try FileManager.default.createDirectory(at: stubOutput, withIntermediateDirectories: true)
        for module in Self.stubModules {
            let stub = try await swiftc([
                "-emit-module", "-parse-as-library", "-module-name", module,
                // The stubs stand in for Objective-C headers, whose globals Swift 6 does not check for concurrency.
                "-swift-version", "5",
                "-I", stubOutput.path, "-module-cache-path", moduleCache,
                "-o", stubOutput.appendingPathComponent("\(module).swiftmodule").path,
                sources.appendingPathComponent(module).appendingPathComponent("\(module).swift").path,
            ])
            guard stub.status == 0 else { return (stub.status, "stub module \(module):\n" + stub.output) }
        }
        let kit = sources.appendingPathComponent("GatehouseKit")
        return try await swiftc(
            [
                "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", "GatehouseKit",
                // Every file's errors, not only those of the first batch that failed.
                "-continue-building-after-errors",
                // SwiftPM's package name is the root package's identity: its folder name, lowercased.
                "-package-name", repository.lastPathComponent.lowercased(),
                "-D", "SWIFT_PACKAGE", "-D", "DEBUG", "-D", "GATEHOUSE_APPLE_STUBS",
                "-I", stubOutput.path, "-I", builtModules.path, "-module-cache-path", moduleCache,
            ]
                + moduleMaps.flatMap {
                    ["-Xcc", "-fmodule-map-file=\($0.path)", "-Xcc", "-I", "-Xcc", $0.deletingLastPathComponent().path]
                }
                + swiftFiles(in: kit).map(\.path))
    }

    func remove() { folder.remove() }

    private var moduleCache: String { folder.url.appendingPathComponent("ModuleCache").path }

    private func copySources() throws {
        let files = FileManager.default
        let stubs = repository.appendingPathComponent("Tests/AppleStubs")
        for module in Self.stubModules {
            let folder = sources.appendingPathComponent(module)
            try files.createDirectory(at: folder, withIntermediateDirectories: true)
            try files.copyItem(
                at: stubs.appendingPathComponent("\(module).swift"),
                to: folder.appendingPathComponent("\(module).swift"))
        }
        let kit = sources.appendingPathComponent("GatehouseKit")
        try files.copyItem(at: repository.appendingPathComponent("Sources/GatehouseKit"), to: kit)
        try files.copyItem(
            at: stubs.appendingPathComponent("AppleLayerProbe.swift"),
            to: kit.appendingPathComponent("AppleLayerProbe.swift"))
    }

    private func swiftFiles(in folder: URL) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    private func swiftc(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run("swiftc", arguments: arguments, mergingStandardError: true)
        return (result.status, result.standardOutput)
    }

    /// The `Modules` folder SwiftPM fills next to the test bundle (`.build/<triple>/debug/Modules`).
    private static func findBuiltModules() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let modules = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(
                atPath: modules.appendingPathComponent("GatehouseProtocol.swiftmodule").path)
            {
                return modules
            }
            folder = folder.deletingLastPathComponent()
        }
        throw CheckError("no Modules/GatehouseProtocol.swiftmodule above \(CommandLine.arguments[0])")
    }

    /// The C modules' maps in the package checkouts (`.build/checkouts/*/Sources/*/include/module.modulemap`):
    /// swift-crypto's, which GatehouseProtocol's Crypto import needs, and the others, which cost nothing unused.
    private static func moduleMaps(near builtModules: URL) throws -> [URL] {
        let files = FileManager.default
        var folder = builtModules.deletingLastPathComponent()
        for _ in 0..<4 {
            let checkouts = folder.appendingPathComponent("checkouts")
            if let packages = try? files.contentsOfDirectory(atPath: checkouts.path) {
                let maps = packages.flatMap { package -> [URL] in
                    let targets = checkouts.appendingPathComponent(package).appendingPathComponent("Sources")
                    return ((try? files.contentsOfDirectory(atPath: targets.path)) ?? []).map {
                        targets.appendingPathComponent($0).appendingPathComponent("include/module.modulemap")
                    }
                }
                return maps.filter { files.fileExists(atPath: $0.path) }.sorted { $0.path < $1.path }
            }
            folder = folder.deletingLastPathComponent()
        }
        throw CheckError("no checkouts folder above \(builtModules.path)")
    }

    struct CheckError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
