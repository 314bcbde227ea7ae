import GatehouseCore
import Foundation
import GatehouseProtocol

/// A person's "delete my data from this app" requests, shown on `/settings/apps`: the request goes to the app's
/// data-deletion URL through the callback outbox, and the page lists each request with the confirmation code
/// and status URL from the app's reply, or its delivery state while the outbox is still retrying.
struct DataDeletionRequests: Sendable {
    let services: GatehouseServices

    /// Queues the data-deletion callback, makes its first attempt while the person waits, then removes the app
    /// (which sends the deauthorize callback). An app without a data-deletion URL is only removed.
    func request(app: AppRecord, user: UserRecord) async throws {
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        if let record = try await services.outbox.enqueue(
            .dataDeletion, app: app, userID: user.id, scopedUserID: scoped, at: services.clock.now())
        {
            // Usually the code is there on the next page; if the app's server is down, the outbox keeps retrying.
            _ = await services.outbox.attempt(record)
        }
        try await AppRemoval(services: services).remove(appID: app.id, userID: user.id, scopedID: scoped)
    }

    /// Template rows, newest first. Absent values are left out, since swift-mustache shows a section for "".
    func rows(userID: String) async throws -> [[String: Any]] {
        var out: [[String: Any]] = []
        for record in try await services.storage.appCallbacks.list(userID: userID, kind: .dataDeletion) {
            let app = try await services.storage.apps.find(id: record.appID)
            var item: [String: Any] = [
                "id": record.id, "appName": app?.name ?? record.appID,
                "requested": PageDates.utc(record.createdAt, "d MMM yyyy, HH:mm 'UTC'"),
                "status": Self.status(record),
            ]
            if let code = record.confirmationCode { item["confirmationCode"] = code }
            if let url = record.statusURL { item["statusURL"] = url }
            out.append(item)
        }
        return out
    }

    static func status(_ record: AppCallbackRecord) -> String {
        if record.deliveredAt != nil {
            return record.confirmationCode != nil
                ? "Received by the app" : "Received by the app, which sent no confirmation code"
        }
        if record.gaveUpAt != nil { return "The app could not be reached; Gatehouse stopped trying" }
        return "Waiting for the app to answer; Gatehouse keeps trying"
    }
}
