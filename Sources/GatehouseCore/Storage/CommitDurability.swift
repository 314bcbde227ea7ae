/// What a committed write survives on SQLite (`PRAGMA synchronous`; PostgreSQL follows its own server's settings).
///
/// In WAL mode a commit is written to the log before it is answered either way, so both survive the process being
/// killed; they differ in whether the commit waits for the disk as well. The server always uses
/// ``powerLoss``. A database that is deleted when its process stops (GatehouseTesting's in-process emulator) has
/// nothing to keep across a power cut, and there the wait was a third of a reset's time.
package enum CommitDurability: String, Sendable {
    /// `synchronous=FULL`: every commit waits for an fsync, so an answered write survives a power cut.
    case powerLoss
    /// `synchronous=NORMAL`: commits survive a crash of the process; the last of them may roll back (never
    /// half-apply) if the machine loses power before SQLite's next checkpoint.
    case processCrash

    /// The `PRAGMA` that sets it.
    package var pragma: String {
        switch self {
        case .powerLoss: "PRAGMA synchronous=FULL"
        case .processCrash: "PRAGMA synchronous=NORMAL"
        }
    }
}
