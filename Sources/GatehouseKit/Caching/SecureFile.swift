import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner-only file writes for the caches: tokens are credentials, so they must never be readable by
/// other local users, not even for the moment between writing a file and fixing its mode.
enum SecureFile {
    struct WriteError: Error, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32
        var description: String { "\(operation) \(path) failed (errno \(code))" }
    }

    /// Creates `directory` (and missing parents) with mode 0700. An existing folder keeps its mode.
    static func ensureDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes `data` to `url` with mode 0600 by creating a temporary file next to it and renaming it
    /// over the target, so readers see the old file or the new one, never half of one.
    ///
    /// - Parameter exclusive: fail with `EEXIST` instead of replacing an existing file (a hard link
    ///   is atomic and refuses to overwrite), for markers that the first writer must win.
    static func write(_ data: Data, to url: URL, exclusive: Bool = false) throws {
        let directory = url.deletingLastPathComponent()
        try ensureDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(operation: "create", path: temporary, code: errno) }
        var failure: WriteError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = WriteError(operation: "write", path: temporary, code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = WriteError(operation: "fsync", path: temporary, code: errno) }
        close(fd)
        defer { unlink(temporary) }
        if let failure { throw failure }
        if exclusive {
            guard link(temporary, url.path) == 0 else {
                throw WriteError(operation: "link", path: url.path, code: errno)
            }
        } else {
            guard rename(temporary, url.path) == 0 else {
                throw WriteError(operation: "rename", path: url.path, code: errno)
            }
        }
    }

    /// Removes `url`; a file that is already gone is not an error.
    static func remove(_ url: URL) {
        unlink(url.path)
    }

    private static func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, pointer, count)
        #elseif canImport(Musl)
        Musl.write(fd, pointer, count)
        #else
        Darwin.write(fd, pointer, count)
        #endif
    }
}
