// swift-tools-version:6.0
// A measurement, not part of Gatehouse: the caller-miss statement through SQLKit over SQLiteKit (today's path),
// through sqlite-nio's own SQLite copy with a kept statement, and through GRDB (which keeps statements per
// connection). Run by ./run.
import PackageDescription

let package = Package(
    name: "sqlite-statements",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        .package(url: "https://github.com/vapor/sqlite-kit", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/sql-kit", exact: "3.36.0"),
    ],
    targets: [
        .executableTarget(
            name: "sqlite-statements",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            // Gatehouse's kept-statement reader and row, compiled here from the server's own files (symlinks).
            swiftSettings: [.swiftLanguageMode(.v5)])
    ]
)
