import GatehouseCore
import Foundation
import Hummingbird
import Mustache

/// Renders the HTML pages from the mustache templates shipped in the target's resources.
package struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let stylesheet: ByteBuffer
    let devMode: Bool

    /// Loads templates and static assets from the bundle.
    package static func load(devMode: Bool) async throws -> PageRenderer {
        guard let resources = Bundle.module.url(forResource: "Resources", withExtension: nil) else {
            throw PageError.resourcesMissing
        }
        let library = try await MustacheLibrary(directory: resources.appendingPathComponent("templates").path)
        let css = try Data(contentsOf: resources.appendingPathComponent("static/gatehouse.css"))
        return PageRenderer(library: library, stylesheet: ByteBuffer(bytes: css), devMode: devMode)
    }

    enum PageError: Error { case resourcesMissing, templateMissing(String) }

    /// Renders a template with `values` (the layout's `devMode` flag is added).
    func render(_ template: String, _ values: [String: Any]) -> String {
        // swift-mustache treats "" as true in sections, so empty strings are dropped: `{{#error}}` stays hidden.
        var values = values.filter { !(($0.value as? String)?.isEmpty ?? false) }
        values["devMode"] = devMode
        return library.render(values, withTemplate: template)
            ?? "<!doctype html><title>Gatehouse</title><p>Page unavailable.</p>"
    }

    /// An HTML response with the headers every page carries: no framing, no caching, a strict CSP.
    static func htmlResponse(status: HTTPResponse.Status, html: String, secureCookies: Bool, cookies: [Cookie] = [])
        -> Response
    {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        applySecurityHeaders(to: &headers)
        var response = Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// Anti-framing, no-store and a CSP that allows only Gatehouse's own styles and images.
    static func applySecurityHeaders(to headers: inout HTTPFields) {
        headers[.cacheControl] = "no-store"
        headers[.init("X-Frame-Options")!] = "DENY"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("Referrer-Policy")!] = "no-referrer"
    }

    /// A 303 after a form POST, carrying the same security headers.
    static func seeOther(_ location: String, cookies: [Cookie] = []) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        applySecurityHeaders(to: &headers)
        var response = Response(status: .seeOther, headers: headers)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}
