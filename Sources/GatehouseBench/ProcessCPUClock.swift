import Foundation

// timespec's members come through CoreFoundation in a release build (MemberImportVisibility).
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// The process's CPU time, every thread's (PostgreSQL's event loop too): the clock the probes time a loop by.
enum ProcessCPUClock {
    /// CPU nanoseconds the process has used so far.
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
