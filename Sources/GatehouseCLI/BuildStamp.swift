/// The commit and build date of this binary. The file in the repository says `dev`: `swift build` is a development
/// build. `scripts/release` overwrites this file in its clean snapshot of the commit, never in a work tree, so the
/// stamp is true of every binary it builds and no generated file is committed.
enum BuildStamp {
    static let commit = "dev"
    static let date = "dev"
}
