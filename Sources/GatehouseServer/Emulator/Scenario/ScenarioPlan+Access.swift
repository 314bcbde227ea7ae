import GatehouseCore
import Foundation
import GatehouseProtocol

extension ScenarioPlanBuilder {
    /// Grants (as if the person had logged in now) and fixed-value tokens.
    func planGrantsAndTokens() {
        for grant in scenario.grants {
            let i = grant.index
            guard let appID = appIDs[grant.app], let userID = userIDs[grant.person] else { continue }
            let existing = server.grants[appID + "/" + userID]
            let audience = grant.defaultAudience ?? existing?.defaultAudience
            if let existing, Set(existing.granted) == Set(grant.granted), Set(existing.declined) == Set(grant.declined),
                existing.defaultAudience == audience
            {
                continue
            }
            let record = GrantRecord(
                appID: appID, userID: userID, granted: grant.granted, declined: grant.declined,
                createdAt: existing?.createdAt ?? now,
                updatedAt: now, lastLoginAt: now, defaultAudience: audience)
            let text =
                existing.map {
                    "granted \(Self.show($0.granted)), declined \(Self.show($0.declined)) on the server; granted "
                        + "\(Self.show(grant.granted)), declined \(Self.show(grant.declined)) in the file"
                        + ($0.defaultAudience != audience
                            ? "; default_audience \($0.defaultAudience?.wireName ?? "none") on the server" : "")
                } ?? "\(grant.person) has no grant for \(grant.app) on the server"
            change(.saveGrant(record), "grants[\(i)]: " + text)
        }
        for token in scenario.tokens {
            let i = token.index
            guard let appID = appIDs[token.app], let userID = userIDs[token.person] else { continue }
            let path = "tokens[\(i)]"
            let hash = SecretHash.sha256Hex(token.value)
            guard let existing = server.tokens[hash] else {
                let record = TokenRecord(
                    id: ScenarioIDs.tokenRecord(value: token.value), tokenHash: hash, kind: .user, appID: appID,
                    userID: userID,
                    issuedAt: now, expiresAt: token.lifetime.map { now.addingTimeInterval($0) }, origin: "scenario")
                change(.insertToken(record), "\(path): no such token on the server")
                continue
            }
            guard existing.kind == .user, existing.appID == appID, existing.userID == userID else {
                problem(
                    token.at, path + ".value", "this value is already another app's or person's token on the server")
                continue
            }
            guard existing.revokedAt == nil else {
                // Revocation cannot be undone, as on Facebook: a test that needs the token again needs a new value.
                problem(
                    token.at, path + ".value", "this token was revoked on the server; give the scenario a new value")
                continue
            }
            if let expires = existing.expiresAt, expires <= now {
                change(
                    .setTokenExpiry(id: existing.id, expiresAt: token.lifetime.map { now.addingTimeInterval($0) }),
                    "\(path): expired on the server")
            } else if (existing.expiresAt == nil) != (token.lifetime == nil) {
                change(
                    .setTokenExpiry(id: existing.id, expiresAt: token.lifetime.map { now.addingTimeInterval($0) }),
                    "\(path): "
                        + (token.lifetime == nil
                            ? "expires on the server, never in the file" : "never expires on the server"))
            }
        }
    }

    /// Injected errors, each under an id derived from its entry; one already used up (or partly used) is put back.
    func planInjections() {
        for error in scenario.errors {
            let i = error.index
            let path = "errors[\(i)]"
            guard server.emulatorControls else {
                problem(error.at, path, "errors can only be injected in development mode")
                continue
            }
            let kind: InjectionTargetKind, targetID: String?
            switch error.target {
            case .app(let key): (kind, targetID) = (.app, appIDs[key])
            case .person(let key): (kind, targetID) = (.user, userIDs[key])
            case .token(let value):
                // The token record's id: the one on the server, or the one this apply gives it.
                kind = .token
                targetID = server.tokens[SecretHash.sha256Hex(value)]?.id ?? ScenarioIDs.tokenRecord(value: value)
            }
            guard let targetID else { continue }
            let record = InjectedErrorRecord(
                id: ScenarioIDs.injection(error), targetKind: kind, targetID: targetID, code: error.error.code,
                subcode: error.error.subcode, remaining: error.times, createdAt: now)
            if let existing = server.injections[record.id], existing.targetKind == kind, existing.targetID == targetID,
                existing.code == record.code, existing.subcode == record.subcode, existing.remaining == record.remaining
            {
                continue
            }
            let text =
                server.injections[record.id].map {
                    "\($0.remaining.map { "\($0) calls" } ?? "until cleared") left on the server"
                } ?? "not injected on the server"
            change(.putInjection(record), "\(path): \(error.error.rawValue) " + text)
        }
    }
}
