import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// The pages the login dialog shows: its login form (shared with the feed and requests dialogs), the consent page
/// and the publish step.
extension DialogController {
    func loginPage(_ dialog: DialogRequest, _ app: AppRecord, request: Request, email: String?, error: String?)
        async throws -> Response
    {
        try await loginPage(
            back: DialogReturn(rawQuery: dialog.rawQuery), app: app, request: request, email: email, error: error,
            reauthenticate: dialog.authType == .reauthenticate)
    }

    /// The login form for any dialog; `back` names the dialog to come back to.
    func loginPage(
        back: DialogReturn, app: AppRecord, request: Request, email: String?, error: String?,
        reauthenticate: Bool = false
    ) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        var values: [String: Any] = [
            "appName": app.name, "appID": app.id, "csrf": csrf, "dialog": back.query, "email": email ?? "",
            "error": error ?? "", "reauthenticate": reauthenticate, "formAction": PagePath.Dialog.login,
            "kind": back.kind?.rawValue ?? "",
        ]
        // "Create new account" and "Forgotten password?" carry this dialog along, so the flow ends back here.
        if let next = AccountGate.safeNext(back.url) {
            values["accountNext"] = "?" + FormEncoding.encode([("next", next)])
        }
        // A re-authentication must prove the password: no picking then.
        if !reauthenticate {
            values.merge(try await DevIdentityPicker(services: services, pages: pages).values(app: app)) { a, _ in a }
        }
        let html = pages.render("login", values)
        return PageRenderer.htmlResponse(
            status: error == nil ? .ok : .unauthorized, html: html,
            secureCookies: services.configuration.usesSecureCookies, cookies: cookie.map { [$0] } ?? [])
    }

    func consentPage(
        _ dialog: DialogRequest, _ app: AppRecord, user: UserRecord, plan: LoginAttempt.ConsentPlan, request: Request
    ) async throws -> Response {
        let content = ConsentPage.Content(
            ask: plan.ask, plan: plan, dialog: DialogReturn(rawQuery: dialog.rawQuery).query, formAction: nil,
            mentionsRenewal: plan.renewsDataAccess)
        return try await ConsentPage(services: services, pages: pages).render(
            content, app: app, user: user, request: request)
    }

    func publishPage(
        _ dialog: DialogRequest, _ app: AppRecord, user: UserRecord, plan: LoginAttempt.ConsentPlan, read: [String],
        request: Request
    ) async throws -> Response {
        let (csrf, cookie) = sessions.csrfToken(request)
        let scoped = try await services.storage.users.scopedID(appID: app.id, userID: user.id)
        let html = pages.render(
            "publish",
            [
                "appName": app.name, "csrf": csrf, "dialog": DialogReturn(rawQuery: dialog.rawQuery).query,
                "userName": user.fullName, "userPicture": ConsentPage.picture(app: app, scopedID: scoped),
                "read": read,
                "publish": plan.publish.map { name -> [String: Any] in
                    let info = Permission.info(name)
                    return ["name": name, "title": info?.title ?? name, "reveals": info?.reveals ?? ""]
                },
                "audiences": Self.audienceOptions(selected: plan.audience),
            ])
        return PageRenderer.htmlResponse(
            status: .ok, html: html, secureCookies: services.configuration.usesSecureCookies,
            cookies: cookie.map { [$0] } ?? [])
    }

    /// The audience selector's options, narrowest first, with `selected` preselected.
    static func audienceOptions(selected: Audience) -> [[String: Any]] {
        Audience.allCases.map { ["value": $0.wireName, "label": $0.label, "selected": $0 == selected] }
    }
}
