import Foundation

/// A folder of one test's own in the system's temporary directory, named `gatehouse-<label>-<UUID>`.
///
/// Whoever is the last user of the folder calls ``remove()``: the test itself (in a `defer`), or the fixture,
/// server or browser that owns it, once it has stopped. Removal is never tied to `deinit`, because several tests
/// restart a server on the same folder (durability, restart, two nodes) and only they know when the last one is
/// done with it.
///
/// Every folder named here is also removed when the test process exits, if it is still there. That covers the
/// failure paths that never reach `remove()` and the owners that stop in the background (a server asked to stop
/// is reaped by a task the process may not wait for). Without both, each run left hundreds of folders in /tmp.
package struct ScratchDirectory: Sendable {
    package let url: URL
    package var path: String { url.path }

    /// Names a new folder and registers it for removal at exit, without creating it: for code under test that
    /// creates the folder itself (SQLite's parent folders, a browser profile).
    package init(_ label: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-\(label)-\(UUID().uuidString)")
        ExitSweep.shared.add(url.path)
    }

    /// A new folder, created (empty) and registered for removal at exit.
    package static func create(_ label: String) throws -> ScratchDirectory {
        let scratch = ScratchDirectory(label)
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        return scratch
    }

    /// Removes the folder and everything in it. A folder that is already gone is fine; one that could not be
    /// removed (a process still writing into it) stays registered, so the exit sweep tries again.
    package func remove() {
        try? FileManager.default.removeItem(at: url)
        if !FileManager.default.fileExists(atPath: url.path) { ExitSweep.shared.forget(url.path) }
    }
}

/// The folders still to remove when the process exits (`atexit`, so after the last test, never during one).
private final class ExitSweep: @unchecked Sendable {
    static let shared = ExitSweep()

    private let lock = NSLock()
    private var paths: Set<String> = []
    private var registered = false

    func add(_ path: String) {
        lock.withLock {
            if !registered {
                registered = true
                // A C function pointer: the closure may use the shared instance but capture nothing.
                atexit { ExitSweep.shared.sweep() }
            }
            paths.insert(path)
        }
    }

    func forget(_ path: String) { _ = lock.withLock { paths.remove(path) } }

    private func sweep() {
        for path in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
