import Foundation
import HTTPTypes
import Hummingbird

/// The QR code on the two-factor enrolment page (`/settings/two-factor`, issue 32).
///
/// The page draws its `otpauth://` link as a QR code in the browser, with two same-origin scripts: the vendored
/// qrcode-generator (Kazuhiko Arase's, MIT, copied unmodified from Debian's `node-qrcode-generator`; see
/// `Resources/static/vendor/qrcode-generator/README.md`) and Gatehouse's own `two-factor-qr.js`, which hands the
/// library the link and shows its SVG as an `<img>` with a `data:` URL. A maintained encoder rather than one written
/// here: QR encoding (Reed-Solomon, masks, version tables) is easy to get subtly wrong and hard to test without a
/// scanner. Without scripts the page still shows the link and the key to type.
enum TwoFactorQRCode {
    static let libraryPath = "/static/vendor/qrcode-generator/qrcode.js"
    static let scriptPath = "/static/two-factor-qr.js"
    static let library = JavaScriptSDKRoutes.Asset("vendor/qrcode-generator/qrcode.js")
    static let script = JavaScriptSDKRoutes.Asset("two-factor-qr.js")

    /// The enrolment page's CSP: every page's (``PageRenderer/applySecurityHeaders(to:)``) plus same-origin scripts,
    /// and forms that post to this origin only. No inline script, no `eval`: the QR code is an `<img>` whose
    /// source is a `data:` URL, which `img-src` already allows.
    static let pageCSP =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// A day, with a strong ETag (so a revalidation is a 304), as for the JavaScript SDK. Same-origin only: unlike
    /// `sdk.js` these scripts are not offered to other sites, so no CORS headers.
    static let cacheControl = "public, max-age=86400"

    static func register(on router: Router<GatehouseRequestContext>) {
        router.get(RouterPath(libraryPath)) { request, _ in serve(library, request) }
        router.get(RouterPath(scriptPath)) { request, _ in serve(script, request) }
    }

    static func serve(_ asset: JavaScriptSDKRoutes.Asset, _ request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = cacheControl
        headers[.eTag] = asset.etag
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        let presented = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if presented.contains(asset.etag) || presented.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
