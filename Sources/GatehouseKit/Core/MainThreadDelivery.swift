import Foundation

/// Where completion handlers run. Facebook's SDK calls them on the main thread, and Apple apps touch UIKit
/// in them; on Linux there is no UI thread, so they run where the work finished.
enum MainThreadDelivery {
    /// Runs `body` on the main thread on Apple platforms (at once when already there), directly elsewhere.
    static func deliver(_ body: @escaping @Sendable () -> Void) {
        #if canImport(Darwin)
        if Thread.isMainThread { body() } else { DispatchQueue.main.async(execute: body) }
        #else
        body()
        #endif
    }
}
