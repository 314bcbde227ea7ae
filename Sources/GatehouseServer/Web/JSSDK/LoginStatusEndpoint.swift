import Foundation
import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// What `/sdk.js` asks Gatehouse from the web page: `GET /x/oauth/status` (`FB.getLoginStatus`) and
/// `POST /x/oauth/logout` (`FB.logout`).
///
/// Both are cross-origin `fetch`es with the person's Gatehouse session cookie (`credentials: 'include'`), as
/// Facebook's SDK asks www.facebook.com. The page's `Origin` header must be one of the app's "Allowed Domains for
/// the JavaScript SDK"; only then is the answer readable by the page (`Access-Control-Allow-Origin` names that
/// origin, with credentials) and only then does it carry a token. Both are CORS simple requests (a GET, and a
/// form POST), so there is no preflight.
struct LoginStatusEndpoint: Sendable {
    let services: GatehouseServices

    var sessions: BrowserSessions { BrowserSessions(services: services) }

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/x/oauth/status") { request, _ in try await status(request) }
        router.post("/x/oauth/logout") { request, _ in try await logout(request) }
    }

    /// `{"status": "connected" | "not_authorized" | "unknown", "authResponse": {…} | null}`, the shape
    /// `FB.getLoginStatus` hands its callback.
    func status(_ request: Request) async throws -> Response {
        let clientID = request.uri.queryParameters["client_id"].map(String.init) ?? ""
        let (app, refusal) = try await checkedApp(clientID, request)
        guard let app else { return refusal! }
        // The dialog refuses this app a login whose credential is not bound to a PKCE challenge; a status answer
        // hands out a token and a code with none, so for such an app it has nothing to hand out (issue 39,
        // finding 10). The page logs in through the dialog, with its challenge.
        if app.requirePKCE {
            JournalNote.current?.explain(
                "app \(app.id) requires PKCE: the status endpoint answers unknown and hands out no token; log in "
                    + "through the dialog with a code_challenge"
            )
            return reply(["status": "unknown", "authResponse": .null], origin: request.headers[.origin])
        }
        guard let current = try await sessions.current(request, forApp: app.id) else {
            return reply(["status": "unknown", "authResponse": .null], origin: request.headers[.origin])
        }
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        guard let grant = current.grant, grant.granted.contains(Permission.publicProfile) else {
            return reply(["status": "not_authorized", "authResponse": .null], origin: request.headers[.origin])
        }
        let auth = try await authResponse(app: app, userID: current.user.id, scopedID: current.scopedID, grant: grant)
        return reply(["status": "connected", "authResponse": .object(auth)], origin: request.headers[.origin])
    }

    /// Ends the person's Gatehouse session (Facebook's `FB.logout` logs the person out of Facebook too) and revokes
    /// the page's token when it is this app's.
    func logout(_ request: Request) async throws -> Response {
        let form = await FormBody.read(request, limit: 16 * 1024)?.fields ?? [:]
        let (app, refusal) = try await checkedApp(form["client_id"] ?? "", request)
        guard let app else { return refusal! }
        let now = services.clock.now()
        if let token = form["access_token"], !token.isEmpty, token.count <= 512,
            let record = try await services.storage.tokens.find(tokenHash: SecretHash.sha256Hex(token)),
            record.appID == app.id
        {
            try await services.storage.tokens.revoke(id: record.id, at: now)
        }
        if let (session, _) = try await sessions.current(request) {
            try await services.storage.sessions.delete(id: session.id)
        }
        var response = reply(["success": true], origin: request.headers[.origin])
        response.setCookie(sessions.cookie(sessions.sessionCookieName, "", maxAge: 0))
        return response
    }

    // MARK: Helpers

    /// The app, when it exists and lists the request's origin; otherwise the refusal to send.
    private func checkedApp(_ clientID: String, _ request: Request) async throws -> (AppRecord?, Response?) {
        let origin = request.headers[.origin]
        guard !clientID.isEmpty, clientID.count <= 32, clientID.allSatisfy(\.isNumber),
            let app = try await services.storage.apps.find(id: clientID)
        else {
            return (
                nil,
                refusal(
                    .badRequest, "Invalid App ID: \(GraphError.echo(clientID.prefix(32)))", code: 101, origin: origin)
            )
        }
        guard let origin, JavaScriptSDKDomains.allows(origin, for: app) else {
            JournalNote.current?.explain(
                "the page \(origin ?? "(no Origin header)") is not among app \(app.id)'s JavaScript SDK domains; "
                    + "add it with `gatehouse apps update \(app.id) --add-js-sdk-domain ORIGIN`"
            )
            return (
                nil,
                refusal(
                    .forbidden,
                    "Can't load URL: The domain of this URL isn't included in the app's domains. To be able to "
                        + "load this URL, add all domains and subdomains of your app to the Allowed Domains for "
                        + "the JavaScript SDK field in your app settings.",
                    code: 191, origin: origin)
            )
        }
        return (app, nil)
    }

    /// A fresh short-lived token, and a `signed_request` whose code the page's back end may redeem with
    /// `redirect_uri=""` (the `fbsr_` cookie), as Facebook's status answer carries.
    func authResponse(app: AppRecord, userID: String, scopedID known: String?, grant: GrantRecord) async throws
        -> JSONObject
    {
        let now = services.clock.now()
        let scopedID: String
        if let known {
            scopedID = known
        } else {
            scopedID = try await services.storage.users.scopedID(appID: app.id, userID: userID)
        }
        let code = "AQ" + services.random.alphanumeric(bits: 256)
        let codeRecord = AuthCodeRecord(
            id: services.random.uuidString(), codeHash: SecretHash.sha256Hex(code), appID: app.id, userID: userID,
            redirectURI: "", scopes: grant.granted, createdAt: now,
            expiresAt: now.addingTimeInterval(Lifetimes.authorizationCode))
        let tokens = services.tokens
        let token = try await services.storage.transaction { tx in
            try await tx.codes.insert(codeRecord)
            return try await tokens.mintUserToken(
                app: app, userID: userID, lifetime: Lifetimes.shortLivedToken, origin: "dialog", into: tx.tokens
            ).0
        }
        let signed = SignedRequest.make(
            payload: [
                "algorithm": "HMAC-SHA256", "code": .string(code), "issued_at": .int(Int64(now.timeIntervalSince1970)),
                "user_id": .string(scopedID),
            ], secret: app.secret)
        return [
            "accessToken": .string(token), "expiresIn": .int(Int64(Lifetimes.shortLivedToken)),
            "data_access_expiration_time": .int(Int64(grant.dataAccessExpiresAt.timeIntervalSince1970)),
            "signedRequest": .string(signed), "userID": .string(scopedID), "graphDomain": "facebook",
        ]
    }

    /// A JSON answer the page may read: CORS names its origin, with credentials. Never cached.
    private func reply(_ body: JSONObject, status: HTTPResponse.Status = .ok, origin: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = "no-store"
        headers[.vary] = "Origin"
        if let origin {
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowCredentials] = "true"
        }
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.serialized())))
    }

    /// Facebook's error object. Readable by the page (it names no secret), so the SDK can log why it was refused.
    private func refusal(_ status: HTTPResponse.Status, _ message: String, code: Int, origin: String?) -> Response {
        reply(
            ["error": ["message": .string(message), "type": "OAuthException", "code": .int(Int64(code))]],
            status: status, origin: origin)
    }
}
