import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/apps/{id}/grants/{person_id}`: what a person granted and declined to an app, set without a browser, and
/// the app removed (the person's settings page's path: tokens revoked, the deauthorize callback queued).
struct V1Grants: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/apps/{id}/grants/{person_id}") { call in
                let (app, person) = try await pair(call)
                guard let grant = try await services.storage.grants.find(appID: app.id, userID: person.id) else {
                    throw Self.none(app, person)
                }
                return AdminAPIv1.reply(Self.json(grant))
            },
            V1Route(method: .put, path: "/apps/{id}/grants/{person_id}") { try await put($0) },
            V1Route(method: .delete, path: "/apps/{id}/grants/{person_id}") { call in
                let (app, person) = try await pair(call)
                guard try await services.storage.grants.find(appID: app.id, userID: person.id) != nil else {
                    throw Self.none(app, person)
                }
                let scoped = try await services.storage.users.scopedID(appID: app.id, userID: person.id)
                try await AppRemoval(services: services).remove(appID: app.id, userID: person.id, scopedID: scoped)
                return AdminAPIv1.reply(nil)
            },
        ]
    }

    /// `PUT`: `{granted: [...], declined: [...]}` replaces the grant (`public_profile` is always granted), as a
    /// login would: data access runs 90 days from now.
    func put(_ call: V1Call) async throws -> Response {
        var body = try call.body()
        let (app, person) = try await pair(call)
        guard var granted = try body.permissions("granted") else {
            throw Problem.validation("granted", "granted is required")
        }
        let declined = try body.permissions("declined") ?? []
        try body.finish()
        if let both = declined.first(where: granted.contains) {
            throw Problem.validation("declined", "\(both) cannot be both granted and declined")
        }
        if declined.contains(Permission.publicProfile) {
            throw Problem.validation("declined", "public_profile cannot be declined")
        }
        if !granted.contains(Permission.publicProfile) { granted.insert(Permission.publicProfile, at: 0) }
        let now = services.clock.now()
        let existing = try await services.storage.grants.find(appID: app.id, userID: person.id)
        let grant = GrantRecord(
            appID: app.id, userID: person.id, granted: granted, declined: declined,
            createdAt: existing?.createdAt ?? now,
            updatedAt: now, lastLoginAt: now, defaultAudience: existing?.defaultAudience)
        try await services.storage.grants.save(grant)
        return AdminAPIv1.reply(Self.json(grant))
    }

    private func pair(_ call: V1Call) async throws -> (AppRecord, UserRecord) {
        (
            try await V1Apps(services: services).find(call.parameter("id")),
            try await V1People(services: services).find(call.parameter("person_id"))
        )
    }

    static func none(_ app: AppRecord, _ person: UserRecord) -> Problem {
        .notFound("\(person.id) has not authorized app \(app.id)")
    }

    static func json(_ grant: GrantRecord) -> JSONValue {
        [
            "app_id": .string(grant.appID), "person_id": .string(grant.userID),
            "granted": .array(grant.granted.map(JSONValue.string)),
            "declined": .array(grant.declined.map(JSONValue.string)),
            "created_time": AdminAPIv1.time(grant.createdAt), "updated_time": AdminAPIv1.time(grant.updatedAt),
            "data_access_expiration_time": AdminAPIv1.time(grant.dataAccessExpiresAt),
        ]
    }
}
