// swift-tools-version:6.2
import PackageDescription

/// The upcoming language features every target, tests included, builds with: those Hummingbird 2 turns on for itself
/// (`ExistentialAny`, `MemberImportVisibility`; its third, `InternalImportsByDefault`, is not on yet: every
/// module's `package` API would need `package import` of the modules its types come from).
let languageFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
/// The server side's targets also run nonisolated async functions on their caller's executor (Swift 6.2's
/// default to be), which saves the server's hot path a hop per call (docs/BENCHMARKS-HISTORY.md, sixth run).
let serverSettings: [SwiftSetting] = languageFeatures + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "Gatehouse",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // What the README documents: the SDK, its desktop presenter and the emulator for app tests, and the tool.
        .library(name: "GatehouseKit", targets: ["GatehouseKit"]),
        .library(name: "GatehouseTesting", targets: ["GatehouseTesting"]),
        .library(name: "GatehouseKitLoopback", targets: ["GatehouseKitLoopback"]),
        .executable(name: "gatehouse", targets: ["gatehouse"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // Traces over OTLP/HTTP only (`--otlp-endpoint`); the gRPC exporter's trait would add gRPC to every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
    ],
    targets: [
        // Wire vocabulary shared by server and SDK. No I/O.
        .target(
            name: "GatehouseProtocol",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: serverSettings
        ),
        // Records, store protocols, the pure protocol decisions, parsers and caches. No SQL driver, HTTP server or
        // metrics backend: `swift build --target GatehouseCore` builds none of them.
        .target(
            name: "GatehouseCore",
            dependencies: [
                "GatehouseProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: serverSettings
        ),
        // The SQLKit stores, migrations, and the SQLite and PostgreSQL set-up.
        .target(
            name: "GatehouseStorage",
            dependencies: [
                "GatehouseCore",
                "GatehouseProtocol",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A prepared row's view by name, built once on demand (PostgresPreparedRow).
                .product(name: "Atomics", package: "swift-atomics"),
                // Database spans (a no-op unless the server bootstraps a tracer: `--otlp-endpoint`).
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: serverSettings
        ),
        // The Hummingbird application: routes, pages, the console, middleware, metrics and callbacks.
        .target(
            name: "GatehouseServer",
            dependencies: [
                "GatehouseCore",
                "GatehouseStorage",
                "GatehouseProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Yams", package: "Yams"),
                // The mail outbox's sendmail command, without Foundation's `Process` (see ChildProcesses).
                .product(
                    name: "Subprocess", package: "swift-subprocess", condition: .when(platforms: [.macOS, .linux])),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            resources: [.copy("Resources")],
            swiftSettings: serverSettings
        ),
        // The benchmark's tools, kept out of the server and storage products: the bare reference app, the
        // in-process pipeline probe, the bulk seeder and the commit-rate probe (`gatehouse bench …`, `gatehouse
        // seed bench`, `scripts/bench`).
        .target(
            name: "GatehouseBench",
            dependencies: [
                "GatehouseServer", "GatehouseStorage", "GatehouseCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // EmbeddedChannel for `gatehouse bench pipeline`'s in-process request contexts.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // `gatehouse bench emulator`: the in-process emulator's helpers and a headless login, timed.
                "GatehouseTesting", "GatehouseKit",
            ],
            swiftSettings: serverSettings
        ),
        // An in-process emulator for tests of apps that use Facebook Login (and for Gatehouse's own tests).
        .target(
            name: "GatehouseTesting",
            dependencies: [
                // GatehouseKit for HeadlessLoginPresenter, which plays the login dialog for an app's own LoginManager.
                "GatehouseServer", "GatehouseCore", "GatehouseStorage", "GatehouseProtocol", "GatehouseKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The admin API's client (AdminConnection): NIO's, a fraction of URLSession's cost per call on Linux.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: languageFeatures
        ),
        // The login SDK with Facebook's iOS SDK API. Foundation + GatehouseProtocol only, so apps pull in no server stack.
        .target(
            name: "GatehouseKit",
            dependencies: [
                "GatehouseProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: languageFeatures
        ),
        // The RFC 8252 loopback presenter for desktop and command-line programs (needs an HTTP listener).
        .target(
            name: "GatehouseKitLoopback",
            dependencies: [
                "GatehouseKit", "GatehouseProtocol", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Starts the browser (`$BROWSER`, `open`, `xdg-open`) without Foundation's `Process` (see ChildProcesses).
                .product(
                    name: "Subprocess", package: "swift-subprocess", condition: .when(platforms: [.macOS, .linux])),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: languageFeatures
        ),
        // Command implementations of the `gatehouse` tool (a library so tests can drive them).
        .target(
            name: "GatehouseCLI",
            dependencies: [
                "GatehouseServer",
                "GatehouseBench",
                "GatehouseCore",
                "GatehouseStorage",
                "GatehouseProtocol",
                "GatehouseKit",
                "GatehouseKitLoopback",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                // `--ca-cert`: requests to an https server whose certificate a private CA issued.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: languageFeatures
        ),
        .executableTarget(
            name: "gatehouse",
            dependencies: [
                "GatehouseCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: languageFeatures
        ),
        // The one launcher the tests start child processes with (servers, the CLI, chromedriver, nginx, python).
        // swift-subprocess, not Foundation's `Process`: on Linux, `Process.run()` in Swift 6.3 reads past a
        // readdir buffer and traps at random when a test process spawns many children (see docs/TESTING.md).
        .target(
            name: "ChildProcesses",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/ChildProcesses",
            swiftSettings: languageFeatures
        ),
        // What the tests share: `ServedGatehouse` (the one launcher of a `gatehouse serve` child), `TestServer` (the
        // server's services in-process, over a fresh SQLite file and a fixed clock), record fixtures, the SQLite and
        // PostgreSQL backends the storage contract runs against (a migrated SQLite template copied per test, a database
        // of its own on the cluster `scripts/test` starts), polling, a free port, and scratch folders removed when done
        // (or at exit). Only test targets depend on it.
        .target(
            name: "GatehouseTestSupport",
            dependencies: [
                "GatehouseCore",
                "GatehouseStorage",
                "GatehouseProtocol",
                "GatehouseServer",
                "ChildProcesses",
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // ServedGatehouse's readiness check (over HTTPS for a server started with --tls-cert).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/GatehouseTestSupport",
            swiftSettings: languageFeatures
        ),
        .testTarget(
            name: "GatehouseProtocolTests", dependencies: ["GatehouseProtocol"], swiftSettings: languageFeatures),
        // The pure decisions, parsers and caches, with no database or server.
        .testTarget(
            name: "GatehouseCoreTests",
            dependencies: [
                "GatehouseCore", "GatehouseProtocol", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: languageFeatures
        ),
        // The stores, migrations and the SQLite and PostgreSQL set-up, run against both backends.
        .testTarget(
            name: "GatehouseStorageTests",
            dependencies: [
                "GatehouseStorage",
                "GatehouseCore",
                "GatehouseProtocol",
                "GatehouseTestSupport",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: languageFeatures
        ),
        .testTarget(
            name: "GatehouseServerTests",
            dependencies: [
                "GatehouseServer",
                "GatehouseCore",
                "GatehouseStorage",
                "GatehouseProtocol",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                "ChildProcesses",
                "GatehouseTestSupport",
            ],
            swiftSettings: languageFeatures
        ),
        // The SDK tests' shared fixtures (clocks, token caches, recorders, the Graph helpers, `.kitGlobals`), for the
        // fast GatehouseKitTests and the live suites in GatehouseIntegrationTests alike.
        .target(
            name: "GatehouseKitTestSupport",
            dependencies: ["GatehouseKit", "GatehouseProtocol"],
            path: "Tests/GatehouseKitTestSupport",
            swiftSettings: languageFeatures
        ),
        .testTarget(
            name: "GatehouseKitTests",
            dependencies: [
                // In-process only: no server, no child process (those suites are in GatehouseIntegrationTests/Kit).
                "GatehouseKit", "GatehouseProtocol", "GatehouseCore", "GatehouseKitTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: languageFeatures
        ),
        .testTarget(
            name: "GatehouseTestingTests",
            dependencies: [
                "GatehouseTesting", "GatehouseProtocol", "GatehouseKit", "GatehouseCore", "GatehouseServer",
            ],
            swiftSettings: languageFeatures),
        .testTarget(
            name: "GatehouseKitLoopbackTests", dependencies: ["GatehouseKitLoopback", "GatehouseKit"],
            swiftSettings: languageFeatures),
        // Sample-style app code ported from Facebook's SDK by changing only the import (UIKit parts guarded);
        // GatehouseTesting runs the seeds' server-side samples (revoke, permissions, requests) against an emulator.
        .testTarget(
            name: "PortingTests", dependencies: ["GatehouseKit", "GatehouseTesting"], swiftSettings: languageFeatures),
        // The CLI's in-process checks (its README and docs command lines).
        .testTarget(
            name: "GatehouseCLITests",
            dependencies: [
                "GatehouseCLI", "GatehouseServer", "GatehouseCore", "GatehouseStorage", "GatehouseProtocol",
                "GatehouseTestSupport",
            ],
            swiftSettings: languageFeatures
        ),
        // The slow suites, and only they: every suite that starts a child process (`gatehouse serve` through
        // `ServedGatehouse`, the CLI, python clients, swiftc), drives headless Chromium, or runs a second node behind
        // nginx. `scripts/test --fast` leaves out this target; the other test targets are in-process.
        //   CLI/         the `gatehouse` binary as people and scripts run it, and outside clients (Interop/, AnyLanguage/)
        //   Operations/  crashes, signals, restarts, migrations and two nodes on one PostgreSQL
        //   Kit/         GatehouseKit against a real `gatehouse serve`, in Chromium, and its Apple-only code under swiftc
        //   Server/      the avatar PNGs, checked by python's zlib; mail through msmtp to a python SMTP server
        //   Support/     the checks of `ServedGatehouse`, the one launcher of `gatehouse serve`
        .testTarget(
            name: "GatehouseIntegrationTests",
            dependencies: [
                "GatehouseCLI", "GatehouseServer", "GatehouseCore", "GatehouseStorage", "GatehouseProtocol",
                "GatehouseKit", "GatehouseKitLoopback", "GatehouseTesting", "ChildProcesses", "GatehouseTestSupport",
                "GatehouseKitTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A private certificate authority for `--ca-cert` (CLITrustTests).
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["CLI/Interop"],
            swiftSettings: languageFeatures
        ),
    ]
)
