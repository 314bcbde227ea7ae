import Crypto
import Foundation
import GatehouseCore
import GatehouseProtocol
import Hummingbird

/// The JavaScript SDK: the script itself (`/sdk.js`, `/{locale}/sdk.js`), and the popup's hand-back page
/// (`/x/connect/xd_arbiter`) with its one same-origin script.
///
/// The scripts are files in `Resources/static`, read once at start with their ETags; there is no build step.
/// The hand-back page has no inline script: its CSP allows `script-src 'self'` and nothing else.
struct JavaScriptSDKRoutes: Sendable {
    let services: GatehouseServices

    /// A static script read once, with its strong ETag.
    struct Asset: Sendable {
        let body: ByteBuffer
        let etag: String

        init(_ name: String) {
            let url = Bundle.module.url(forResource: "Resources", withExtension: nil)?.appendingPathComponent(
                "static/\(name)")
            let data = url.flatMap { try? Data(contentsOf: $0) } ?? Data()
            body = ByteBuffer(bytes: data)
            etag = "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    static let sdk = Asset("sdk.js")
    static let arbiterScript = Asset("xd_arbiter.js")

    /// A day: long enough that pages load the script from the cache, short enough that an upgraded Gatehouse is
    /// picked up the next day (the ETag then makes the check a 304). Facebook's own sdk.js is cached for 20 minutes.
    static let scriptCacheControl = "public, max-age=86400"

    static let arbiterCSP =
        "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/sdk.js") { request, _ in Self.serve(Self.sdk, request) }
        router.get("/sdk/debug.js") { request, _ in Self.serve(Self.sdk, request) }
        router.get("/static/xd_arbiter.js") { request, _ in Self.serve(Self.arbiterScript, request) }
        router.get(RouterPath(JavaScriptSDKArbiter.path)) { request, _ in arbiterPage(request) }
    }

    /// `/{locale}/sdk.js` and `/{locale}/sdk/debug.js`, reached through the Graph catch-all (a first-level
    /// parameter route cannot sit beside `**`). Every locale gets the same script: Gatehouse's pages are English.
    func localized(_ request: Request, locale: String) -> Response {
        guard Self.isLocale(locale) else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Not found\n")))
        }
        return Self.serve(Self.sdk, request)
    }

    /// `en_US`, `pt_BR`, `es_LA`…: two lowercase letters, an underscore, two capitals.
    static func isLocale(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 5, scalars[2] == "_" else { return false }
        return scalars[0..<2].allSatisfy { ("a"..."z").contains($0) }
            && scalars[3..<5].allSatisfy { ("A"..."Z").contains($0) }
    }

    static func serve(_ asset: Asset, _ request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = scriptCacheControl
        headers[.eTag] = asset.etag
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        // Any page may load the script (Facebook's answers `*` too); it carries no secret.
        headers[.accessControlAllowOrigin] = "*"
        headers[.init("Cross-Origin-Resource-Policy")!] = "cross-origin"
        let presented = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if presented.contains(asset.etag) || presented.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    /// The page a `display=popup` dialog returns to. Its script reads the result from the URL and posts it to the
    /// opener, addressed to the page origin named in the query only (the dialog checked that origin against the
    /// app's JavaScript SDK domains before redirecting here).
    func arbiterPage(_ request: Request) -> Response {
        let origin = request.uri.queryParameters["origin"].map(String.init) ?? ""
        guard JavaScriptSDKDomains.canonical(origin) == origin else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .badRequest, headers: headers,
                body: .init(
                    byteBuffer: ByteBuffer(string: "origin must be a page origin such as https://shop.example\n")))
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        PageRenderer.applySecurityHeaders(to: &headers)
        headers[.contentSecurityPolicy] = Self.arbiterCSP
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Gatehouse</title>
            <link rel="stylesheet" href="/static/gatehouse.css"></head>
            <body><main class="card"><p id="xd-status">Returning to the app…</p></main>
            <script src="/static/xd_arbiter.js"></script></body></html>

            """
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
