import GatehouseCore
import Foundation
import Logging

/// The whole emulator state as one JSON document, so a team can commit its test fixtures.
///
/// Ids, secrets, app-scoped ids and token hashes are kept as they are, so tokens and ids in a
/// fixture stay valid after import. Authorization codes and browser sessions are short-lived and
/// left out.
///
/// The format grows by optional keys (`posts`, `webhookSubscriptions`): an older export imports with none of
/// what it lacks, so ``version`` stays 1, to change only when an existing key changes meaning.
package struct EmulatorState: Codable, Sendable {
    package static let formatName = "gatehouse-state"

    package var format = EmulatorState.formatName
    package var version = 1
    package var exportedAt: Date
    package var clockOffsetSeconds: Int64?
    package var apps: [AppRecord]
    package var roles: [Role]
    package var users: [UserRecord]
    package var scopedIDs: [ScopedID]
    package var friendships: [[String]]
    package var grants: [GrantRecord]
    package var tokens: [TokenRecord]
    package var signingKeys: [SigningKeyRecord]
    package var injectedErrors: [InjectedErrorRecord]
    /// Timeline posts and app requests, oldest first (absent in exports from before migration 5).
    package var posts: [PostRecord]?
    package var appRequests: [AppRequestRecord]?
    /// Apps' Webhooks subscriptions with their verify tokens, in app then object order (absent in exports from
    /// before migration 21). Imported as they are, without a verification request: each was verified when made.
    package var webhookSubscriptions: [WebhookSubscriptionRecord]?

    package typealias Role = StoredState.Role
    package typealias ScopedID = StoredState.ScopedID

    /// Keys as the records name them (camelCase), dates as unix seconds, binary data (pictures) as base64.
    /// Key conversion is deliberately off: `.convertToSnakeCase` does not round-trip names like `redirectURIs`.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

/// Reads and replaces the emulator's state.
package struct StateTransfer: Sendable {
    let services: GatehouseServices

    package init(services: GatehouseServices) {
        self.services = services
    }

    /// A file that is not a Gatehouse export, with the reason.
    package struct ImportError: Error, CustomStringConvertible {
        package var description: String
    }

    /// The whole state. Signing keys come without their private halves unless `includePrivateKeys` (the file is
    /// meant to be committed; a private key in it would let anyone sign id_tokens for this server).
    package func export(includePrivateKeys: Bool = false) async throws -> EmulatorState {
        let storage = services.storage
        let apps = try await storage.apps.list()
        let users = try await storage.users.list()
        var roles: [EmulatorState.Role] = [], scoped: [EmulatorState.ScopedID] = [], grants: [GrantRecord] = []
        var friendships: [[String]] = []
        for app in apps {
            roles += try await storage.apps.roles(appID: app.id).map {
                .init(appID: app.id, userID: $0.userID, role: $0.role)
            }
        }
        for user in users {
            scoped += try await storage.users.scopedIDs(userID: user.id).map {
                .init(appID: $0.appID, userID: user.id, scopedID: $0.scopedID)
            }
            grants += try await storage.grants.grants(userID: user.id)
            friendships += try await storage.friendships.friends(of: user.id).filter { user.id < $0 }.map {
                [user.id, $0]
            }
        }
        var posts: [PostRecord] = [], requests: [AppRequestRecord] = []
        var subscriptions: [WebhookSubscriptionRecord]? = storage.webhooks == nil ? nil : []
        for app in apps {
            posts += try await storage.posts.posts(appID: app.id, limit: 1_000_000).reversed()
            requests += try await storage.requests.requests(appID: app.id, limit: 1_000_000).reversed()
            if let webhooks = storage.webhooks { subscriptions? += try await webhooks.subscriptions(appID: app.id) }
        }
        let offset = try await storage.emulator.setting(ClockControl.offsetSetting).flatMap { Int64($0) }
        return EmulatorState(
            exportedAt: services.clock.now(), clockOffsetSeconds: offset, apps: apps, roles: roles, users: users,
            scopedIDs: scoped, friendships: friendships, grants: grants,
            tokens: try await storage.tokens.live(appID: nil, userID: nil, now: services.clock.now()).reversed(),
            signingKeys: try await storage.signingKeys.all().map { key in
                var shown = key
                if !includePrivateKeys { shown.privateKeyPEM = "" }
                return shown
            }, injectedErrors: try await storage.emulator.injections(),
            posts: posts, appRequests: requests, webhookSubscriptions: subscriptions)
    }

    /// Decodes an export, refusing anything that is not one.
    package static func decode(_ data: Data) throws -> EmulatorState {
        let state: EmulatorState
        do {
            state = try EmulatorState.decoder.decode(EmulatorState.self, from: data)
        } catch let error as DecodingError {
            throw ImportError(description: "not a Gatehouse export: \(Self.describe(error))")
        }
        guard state.format == EmulatorState.formatName else {
            throw ImportError(description: "not a Gatehouse export (format is \"\(state.format)\")")
        }
        guard state.version == 1 else {
            throw ImportError(description: "export version \(state.version) is newer than this Gatehouse understands")
        }
        let appIDs = Set(state.apps.map(\.id))
        if let orphan = state.webhookSubscriptions?.first(where: { !appIDs.contains($0.appID) }) {
            throw ImportError(
                description: "webhookSubscriptions names app \(orphan.appID), which the export does not have")
        }
        return state
    }

    /// Replaces everything with `state`, in one transaction. Restart-free: the running server uses the new data at
    /// once.
    package func replace(with state: EmulatorState) async throws {
        try await replace(with: state.stored(at: services.clock.now()))
        services.logger.info(
            "state imported", metadata: ["apps": "\(state.apps.count)", "users": "\(state.users.count)"])
    }

    /// Replaces everything with `stored` (one transaction, which also clears the old state's events, durable
    /// journal, outboxes and rate limits: ``EmulatorStore/replaceAll(with:)``), then empties this node's journal
    /// and sets the clock to its offset. Entries still waiting for the journal table are dropped first, so none
    /// from before lands after; a failed replacement puts them back.
    package func replace(with stored: StoredState) async throws {
        let waiting = services.journalBuffer?.drain().entries ?? []
        do {
            try await services.storage.emulator.replaceAll(with: stored)
        } catch {
            for entry in waiting { services.journalBuffer?.accept(entry) }
            throw error
        }
        services.journal.clear()
        ClockControl(services: services).restore(offset: stored.settings[ClockControl.offsetSetting])
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "missing \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "wrong value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        case .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? "not valid JSON" : "bad value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        @unknown default: "unreadable"
        }
    }
}

extension EmulatorState {
    /// The rows to write for this export. Keys without a private half (the default export) cannot sign, so then
    /// the server keeps its own; codes are not exported, so no token points at one.
    func stored(at now: Date) -> StoredState {
        var stored = StoredState(createdAt: now)
        stored.apps = apps
        stored.users = users
        stored.roles = roles
        stored.scopedIDs = scopedIDs
        stored.friendships = friendships.filter { $0.count == 2 }.map { ($0[0], $0[1]) }
        stored.grants = grants
        stored.tokens = tokens.map { token in
            var token = token
            token.codeID = nil
            return token
        }
        let importedKeys = signingKeys.filter { !$0.privateKeyPEM.isEmpty }
        stored.signingKeys = importedKeys.isEmpty ? nil : importedKeys
        stored.injections = injectedErrors
        stored.posts = posts ?? []
        stored.appRequests = appRequests ?? []
        stored.webhookSubscriptions = webhookSubscriptions ?? []
        if let clockOffsetSeconds { stored.settings[ClockControl.offsetSetting] = String(clockOffsetSeconds) }
        return stored
    }
}
