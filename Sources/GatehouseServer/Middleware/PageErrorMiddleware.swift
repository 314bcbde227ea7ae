import GatehouseCore
import Foundation
import Hummingbird
import Logging

/// Turns anything a page handler throws into a plain error page: never a stack trace or an empty 500.
package struct PageErrorMiddleware: RouterMiddleware {
    package typealias Context = GatehouseRequestContext
    let pages: PageRenderer
    let logger: Logger

    package init(pages: PageRenderer, logger: Logger) {
        self.pages = pages
        self.logger = logger
    }

    package func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let html = pages.render(
                "error",
                ["headline": error.status.reasonPhrase, "detail": "The request could not be handled.", "hint": ""])
            return PageRenderer.htmlResponse(status: error.status, html: html, secureCookies: false)
        } catch {
            logger.error(
                "page handler failed", metadata: ["error": "\(type(of: error))", "path": "\(request.uri.path)"])
            let html = pages.render(
                "error",
                [
                    "headline": "Something went wrong",
                    "detail": "Gatehouse could not complete this request. Try again in a moment.", "hint": "",
                ])
            return PageRenderer.htmlResponse(status: .serviceUnavailable, html: html, secureCookies: false)
        }
    }
}
