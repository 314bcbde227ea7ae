/// Which release this source tree is. The one place the version number lives: `scripts/release` reads it from this
/// line to name the archive, the image tag and the Debian package, and CHANGELOG.md's newest heading must match it
/// (CLIVersionTests holds the two together).
package enum GatehouseVersion {
    package static let number = "0.1.0"

    /// What `gatehouse --version` prints: the version, the commit and the build date. A development build (`swift
    /// build`) says `dev` for both; `scripts/release` stamps them into its snapshot's BuildStamp.swift.
    package static var description: String {
        "\(number) (commit \(BuildStamp.commit), built \(BuildStamp.date))"
    }
}
