import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The OAuth login dialog: `GET /dialog/oauth` here; the forms it posts in `DialogLoginStep.swift` (the password)
/// and `DialogConsentStep.swift` (consent and publish), its pages in `DialogPages.swift`.
struct DialogController: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    var sessions: BrowserSessions { BrowserSessions(services: services) }
    var forms: PageForms { PageForms(services: services, pages: pages) }

    func register(on router: Router<GatehouseRequestContext>) {
        // `/vX.Y/dialog/oauth` reaches `show` through the Graph catch-all: Hummingbird's trie cannot hold
        // a first-level parameter route beside `**`.
        router.get(RouterPath(PagePath.Dialog.oauth)) { request, _ in try await show(request, version: nil) }
        router.post(RouterPath(PagePath.Dialog.login)) { request, context in try await login(request, context) }
        router.post(RouterPath(PagePath.Dialog.consent)) { request, context in try await consent(request, context) }
        router.post(RouterPath(PagePath.Dialog.publish)) { request, context in try await publish(request, context) }
    }

    // MARK: GET

    func show(_ request: Request, version: String?) async throws -> Response {
        if let refused = pages.dialogVersionRefusal(version) { return refused }
        let (query, answeredVersion) = Self.versionCarried(in: request.uri.query ?? "", pathVersion: version)
        let parsed: (DialogRequest, AppRecord)
        switch try await DialogRequest.parse(query: query, findApp: services.storage.apps.find(id:)) {
        case .failure(let problem):
            if let note = JournalNote.current { await explain(problem, on: note) }
            return problemPage(problem, request: request)
        case .success(let value): parsed = value
        }
        // After the app and redirect checks, as Facebook names a bad app before a bad scope.
        if let refused = retiredScopesPage(
            query: query, version: answeredVersion ?? services.configuration.defaultGraphVersion, request: request)
        {
            return refused
        }
        let (dialog, app) = parsed
        JournalNote.current?.identify(appID: app.id, appName: app.name)
        let params = FormEncoding.decode(query).map { Dictionary($0, uniquingKeysWith: { a, _ in a }) } ?? [:]
        let current = try await sessions.current(request, forApp: app.id)
        if let person = current?.user { JournalNote.current?.identify(personID: nil, personName: person.fullName) }
        let justAuthenticated = DialogReturn.justAuthenticated(
            params, session: current?.session, now: services.clock.now())
        let facts = facts(dialog, app, current, justAuthenticated: justAuthenticated)
        switch LoginAttempt.next(facts) {
        case .showLogin(let prefill):
            let error = DialogReturn.showsLoginError(query) ? Self.wrongPasswordMessage : nil
            return try await loginPage(dialog, app, request: request, email: prefill, error: error)
        case .showConsent(let plan):
            return try await consentPage(dialog, app, user: facts.user!, plan: plan, request: request)
        case .showPublishConsent(let plan):
            return try await publishPage(dialog, app, user: facts.user!, plan: plan, read: [], request: request)
        case .complete(let decision):
            let location = try await DialogCompletion(services: services).complete(
                request: dialog, app: app, user: facts.user!, grant: facts.grant, scopedID: current?.scopedID,
                decision: decision)
            var headers = HTTPFields()
            headers[.location] = location
            PageRenderer.applySecurityHeaders(to: &headers)
            return Response(status: .found, headers: headers)
        }
    }

    // MARK: Helpers

    /// The login form's error after a wrong password, in Facebook's words.
    static let wrongPasswordMessage = "The email or password you entered is incorrect."

    /// What the login attempt decides from; `current` is nil when nobody is logged in.
    func facts(_ dialog: DialogRequest, _ app: AppRecord, _ current: DialogSession?, justAuthenticated: Bool)
        -> LoginAttempt.Facts
    {
        LoginAttempt.Facts(
            request: dialog, app: app, user: current?.user, authenticatedAt: current?.session.authenticatedAt,
            justAuthenticated: justAuthenticated, grant: current?.grant, role: current?.role, now: services.clock.now())
    }

    /// The journal's reason for a dialog link Gatehouse cannot use; for an unregistered redirect URI it reads the
    /// app (only then) to list what is registered and where the closest one differs.
    func explain(_ problem: DialogRequest.Problem, on note: JournalNote) async {
        switch problem {
        case .redirectURINotAllowed(let appID, let uri):
            let app = try? await services.storage.apps.find(id: appID)
            if let app { note.identify(appID: app.id, appName: app.name) }
            note.explain(
                JournalExplanation.redirectURINotRegistered(
                    uri, appName: app?.name ?? appID, registered: app?.redirectURIs ?? []))
        case .unknownApp(let id):
            note.explain("no app has the client_id `\(id.prefix(40))`")
        default:
            note.explain(problem.headline + ": " + problem.developerHint)
        }
    }

    /// The dialog's query with the path's Graph API version carried in it as `graph_api_version`, and the version
    /// the dialog answers at. The login and consent forms come back to the unversioned `/dialog/oauth`, so a
    /// dialog opened at `/v2.3/dialog/oauth` keeps answering as v2.3 (its retired permissions stay grantable).
    /// Carried only for versions before the last removal (v2.4).
    static func versionCarried(in query: String, pathVersion: String?) -> (query: String, version: String?) {
        let carriedText: String? = (FormEncoding.decode(query) ?? []).first { $0.0 == versionParameter }?.1
        let carried = carriedText.flatMap { GraphAPIVersion.parse(pathSegment: $0) }
        guard let pathVersion else { return (query, carried) }
        // Only versions that answer differently from today's are carried; other dialogs' queries stay as sent.
        if carried == pathVersion
            || Permission.removed(Permission.retired.map(\.info.name), at: pathVersion).count
                == Permission.retired.count
        {
            return (query, pathVersion)
        }
        let kept = query.split(separator: "&").filter { !$0.hasPrefix(versionParameter + "=") }.joined(separator: "&")
        return ((kept.isEmpty ? "" : kept + "&") + versionParameter + "=" + pathVersion, pathVersion)
    }

    static let versionParameter = "graph_api_version"

    /// Permissions Facebook removed (`read_stream`, `user_interests`, …) asked for at a version after their
    /// removal: Facebook's "Invalid Scopes" page, word for word. At earlier versions they pass on and are granted.
    func retiredScopesPage(query: String, version: String, request: Request) -> Response? {
        let pairs = FormEncoding.decode(query) ?? []
        let scope = Permission.parseScope(pairs.first { $0.0 == "scope" }?.1 ?? "")
        let removed = Permission.removed(scope, at: version)
        guard !removed.isEmpty else { return nil }
        let message = Permission.invalidScopesMessage(removed.prefix(10).map { GraphError.echo($0) })
        JournalNote.current?.explain(
            "the dialog asked at \(version) for permissions Facebook removed in v2.4: \(removed.joined(separator: ", "))"
        )
        return pages.errorPage(.badRequest, headline: "Invalid Scopes", detail: message)
    }

    func problemPage(_ problem: DialogRequest.Problem, request: Request) -> Response {
        pages.errorPage(
            .badRequest, headline: problem.headline,
            detail: "The app sent you to a login link that Gatehouse cannot use. Nothing was shared with the app.",
            hint: problem.developerHint)
    }
}

extension PageRenderer {
    /// The page for a dialog opened under a segment that is no Graph API version Facebook released
    /// (`/v99.0/dialog/oauth`, `/v2.13/dialog/feed`), or nil when the version is fine or absent. A segment that is
    /// not even shaped like a version is the usual 404 page.
    func dialogVersionRefusal(_ version: String?) -> Response? {
        guard let version, !GraphAPIVersion.isReleased(version) else { return nil }
        guard GraphAPIVersion.parse(pathSegment: version) != nil else { return notFoundPage() }
        let named = GraphError.echo(version)
        JournalNote.current?.explain("\(named) is not a Graph API version Facebook released: the dialog is not shown")
        return errorPage(
            .notFound, headline: "Page not found",
            detail: "\(named) is not a Graph API version. Open the dialog under a released version, such as "
                + "/\(GraphAPIVersion.current)/dialog/oauth, or without one.")
    }
}
