// swift-tools-version:6.0
// A measurement, not part of Gatehouse: the caller-miss statement through sqlite-nio (Gatehouse's driver, which
// prepares every statement anew) and through GRDB (which keeps statements per connection). Run by ./run.
import PackageDescription

let package = Package(
    name: "sqlite-statements",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
    ],
    targets: [
        .executableTarget(
            name: "sqlite-statements",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ])
    ]
)
