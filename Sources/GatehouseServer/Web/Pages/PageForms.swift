import GatehouseCore
import Hummingbird

/// The check every page form passes before its handler reads it: the body is form data within the size limit
/// and carries this browser's CSRF token (``BrowserSessions/csrfValid(_:formToken:)``). A form that fails meets
/// one of the two pages below, the same on every page, with the reason in the journal.
struct PageForms: Sendable {
    let services: GatehouseServices
    let pages: PageRenderer

    /// What ``requireCSRF(_:limit:ifUnreadable:)`` hands back.
    enum Checked {
        /// The form, read and carrying this browser's CSRF token.
        case accepted(FormBody)
        /// The page to answer instead (the journal already says why).
        case refused(Response)
    }

    /// How a body too large or not form data is answered: with its own 400 page, or as a form without its token
    /// (the forms whose handlers never told the two apart).
    enum Unreadable: Sendable {
        case badForm
        case expired
    }

    /// The form, or the page that refuses it.
    /// - Parameter limit: the most bytes read (default: the server's `max_body_bytes`).
    func requireCSRF(_ request: Request, limit: Int? = nil, ifUnreadable: Unreadable = .badForm) async -> Checked {
        let body = await FormBody.read(request, limit: limit ?? services.configuration.maxBodyBytes)
        if body == nil, ifUnreadable == .badForm {
            JournalNote.current?.explain("the form could not be read: the body was too large or not form data")
            return .refused(pages.unreadableFormPage())
        }
        guard let body, BrowserSessions(services: services).csrfValid(request, formToken: body["csrf_token"]) else {
            JournalNote.current?.explain(
                "the form's CSRF token does not match the gh_csrf cookie: the page was stale, opened in another"
                    + " browser, or cookies are blocked")
            return .refused(pages.expiredFormPage())
        }
        return .accepted(body)
    }
}

extension PageRenderer {
    /// The plain error page (the `error` template). It sets no cookie, so whether cookies are `Secure` is moot.
    func errorPage(_ status: HTTPResponse.Status, headline: String, detail: String, hint: String? = nil) -> Response {
        let html = render("error", ["headline": headline, "detail": detail, "hint": hint ?? ""])
        return PageRenderer.htmlResponse(status: status, html: html, secureCookies: true)
    }

    /// The one page for a form whose CSRF token is missing or stale.
    func expiredFormPage() -> Response {
        errorPage(
            .forbidden, headline: "This form has expired",
            detail: "For your security the form could not be accepted. Go back, reload the page and try again.")
    }

    /// The page for a form body too large or not form data.
    func unreadableFormPage() -> Response {
        errorPage(
            .badRequest, headline: "The form could not be read",
            detail: "The request was too large or not valid form data.")
    }

    /// The page for a login form whose dialog (or next page) can no longer be used.
    func loginLinkExpiredPage() -> Response {
        errorPage(
            .badRequest, headline: "This login link is no longer valid", detail: "Go back to the app and start again.")
    }

    /// The page for an address no page answers (the development-only pages in production mode).
    func notFoundPage() -> Response {
        errorPage(.notFound, headline: "Page not found", detail: "There is no page at this address.")
    }
}
