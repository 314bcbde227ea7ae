import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// An ephemeral session with no response cache: the SDK's default for Graph calls and the remote token cache.
    ///
    /// Graph replies carry personal data and tokens, so nothing is kept. On Linux it also keeps cancelling safe:
    /// FoundationNetworking reads a session's cache on a background queue before a task's protocol exists, and a
    /// cancel landing in that window reported its failure after the task had left the session's registry, which
    /// traps the whole process ("Trying to access a behaviour for a task that in not in the registry").
    public static func gatehouseUncached() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }
}
