import Foundation
import GatehouseProtocol
import Logging

/// Tells an app's backend about things people did, through the callback URLs the app registered.
package protocol AppCallbackNotifier: Sendable {
    /// The person removed the app: POST `signed_request` to the deauthorize callback URL.
    func appRemoved(app: AppRecord, scopedUserID: String, at: Date) async
}
