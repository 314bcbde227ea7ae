import GatehouseCore
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import NIOCore

/// Builds the Hummingbird application that serves every Gatehouse route.
package enum GatehouseApp {
    /// The router with all routes: dialog pages, pictures, dev helpers, and the Graph API catch-all. `HEAD` is
    /// answered wherever `GET` is (``GatehouseRouter``).
    package static func router(services: GatehouseServices, pages: PageRenderer) -> GatehouseRouter {
        let router = Router(context: GatehouseRequestContext.self)
        // Order matters: the real client first (rate limits and logs use it), then timing, then error pages,
        // then the admin gate, so a refused console request is still timed and logged.
        // Each middleware runs on every request, so one that cannot change anything in this configuration is
        // left out rather than asked each time (docs/BENCHMARKS.md has what each costs).
        let configuration = services.configuration
        // First of all: development mode answers only to loopback and its public URL (DNS rebinding).
        if configuration.isDevelopment { router.add(middleware: DevelopmentHostGuard(configuration: configuration)) }
        if ForwardedHeadersMiddleware.isNeeded(configuration) {
            router.add(middleware: ForwardedHeadersMiddleware(configuration: configuration))
        }
        let observability = RequestObservabilityMiddleware(metrics: services.metrics, logger: services.logger)
        router.add(middleware: observability)
        // Outside the error pages, so an entry has the status the client got.
        if configuration.journalEnabled {
            router.add(middleware: JournalMiddleware(journal: services.journal, clock: services.clock))
        }
        // Traces (only with a tracer): inside the journal, whose note gives the span its app and reason, and
        // outside the error pages; the route labels are the metrics'.
        if let tracer = services.tracer {
            router.add(
                middleware: RequestTracingMiddleware(
                    tracer: tracer, configuration: configuration, routes: observability.handles))
        }
        router.add(middleware: PageErrorMiddleware(pages: pages, logger: services.logger))
        // Development mode leaves the console open, so the gate would only pass requests through.
        if configuration.isProduction { router.add(middleware: AdminGate(services: services)) }
        // Behind the gate, so only admitted writes to /admin/… and /console/… are recorded, with who made them.
        router.add(middleware: AuditMiddleware(services: services))
        // Where each browser session is used, for the person's "Where you're logged in" (at most one write per session
        // per five minutes per node).
        if services.storage.sessionActivity != nil {
            router.add(middleware: SessionActivityMiddleware(services: services))
        }
        // Every route group the server answers, registered here and nowhere else: reading this function shows
        // every path (docs/ARCHITECTURE.md maps each group to its folder).

        // Ops: health, metrics, the shared stylesheet.
        OpsRoutes(services: services).register(on: router)
        HealthEndpoints(storage: services.storage, logger: services.logger).register(on: router)
        router.get("/static/gatehouse.css") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/css; charset=utf-8"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: pages.stylesheet))
        }

        // Web: the login dialog and its steps (identity picker, account-state page, login code), social dialogs.
        let dialog = DialogController(services: services, pages: pages)
        dialog.register(on: router)
        DevIdentityPicker(services: services, pages: pages).register(on: router)
        AccountGate(services: services, pages: pages).register(on: router)
        SecondFactorGate(services: services, pages: pages).register(on: router)
        let social = SocialDialogController(services: services, pages: pages, dialogs: dialog)
        social.register(on: router)
        // Web: the person's own pages (account, settings, security, two-factor), account flows, test-user login.
        AccountPages(services: services, pages: pages).register(on: router)
        TestUserLogin(services: services, pages: pages).register(on: router)
        SettingsPages(services: services, pages: pages).register(on: router)
        SecuritySettingsPages(services: services, pages: pages).register(on: router)
        TwoFactorSettingsPages(services: services, pages: pages).register(on: router)
        TwoFactorQRCode.register(on: router)
        AccountFlowPages(services: services, pages: pages).register(on: router)
        // Web: device login, pictures, the JavaScript SDK and its status endpoint.
        DevicePages(services: services, pages: pages).register(on: router)
        PictureController(services: services).register(on: router)
        let javaScriptSDK = JavaScriptSDKRoutes(services: services)
        javaScriptSDK.register(on: router)
        LoginStatusEndpoint(services: services).register(on: router)

        // OIDC: discovery and JWKS.
        DiscoveryController(services: services).register(on: router)

        // Admin: the console's login, the versioned admin API (and the retired routes' 410s), the console.
        AdminLoginController(services: services, pages: pages).register(on: router)
        RetiredAdminRoutes.register(on: router)
        AdminAPIv1(services: services).register(on: router)
        let console = ConsoleController(services: services, pages: pages, access: ConsoleAccess(services: services))
        console.register(on: router)
        ConsoleApps(console: console).register(on: router)
        ConsoleUsers(console: console).register(on: router)
        ConsoleTools(console: console).register(on: router)
        ConsoleExplorer(console: console).register(on: router)
        ConsoleSocial(console: console).register(on: router)
        ConsoleActivity(console: console).register(on: router)
        ConsoleAdminTokens(console: console).register(on: router)
        ConsoleMail(console: console).register(on: router)
        ConsoleWebhooks(console: console).register(on: router)

        // Every path above answers a method it lacks with 405 and `Allow`; the Graph API's paths below keep
        // Facebook's answers. Keep this after the last page or admin route.
        let refusals = MethodNotAllowed.register(on: router, pages: pages)

        // Graph: the versioned catch-all, with the pages that live under a version segment.
        var graph = GraphHTTPAdapter(services: services, dispatcher: GraphDispatcher(services: services))
        graph.versionedPages["dialog/oauth"] = { request, version in try await dialog.show(request, version: version) }
        for kind in SocialDialogKind.allCases {
            graph.versionedPages["dialog/\(kind.rawValue)"] = { request, version in
                try await social.show(kind, request, version: version)
            }
        }
        // `/en_US/sdk.js`: the "version" segment is the locale here.
        graph.versionedPages["sdk.js"] = { request, locale in javaScriptSDK.localized(request, locale: locale) }
        graph.versionedPages["sdk/debug.js"] = { request, locale in javaScriptSDK.localized(request, locale: locale) }
        graph.register(on: router)
        // `/device` is a page, so its Graph siblings get explicit routes rather than relying on the catch-all.
        let adapter = graph
        router.post("/device/login") { request, context in await adapter.handle(request, context) }
        router.post("/device/login_status") { request, context in await adapter.handle(request, context) }
        return GatehouseRouter(router, refusals: refusals)
    }

    /// A ready-to-run application bound to the configured host and port.
    package static func application(
        services: GatehouseServices, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        let pages = try await PageRenderer.load(devMode: services.configuration.mode == .development)
        return Application(
            router: router(services: services, pages: pages),
            server: try serverBuilder(services.configuration),
            configuration: .init(
                address: .hostname(services.configuration.host, port: services.configuration.port),
                serverName: "Gatehouse"),
            onServerRunning: onServerRunning, logger: services.logger)
    }

    /// Plain HTTP/1.1, or HTTPS when `tls_cert` and `tls_key` are configured (swift-nio-ssl, TLS 1.2+).
    /// - Throws: ``ConfigurationError`` naming the file when the certificate or key cannot be loaded.
    package static func serverBuilder(_ configuration: GatehouseConfiguration) throws -> HTTPServerBuilder {
        guard let certPath = configuration.tlsCertificatePath, let keyPath = configuration.tlsKeyPath else {
            return .http1()
        }
        let chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certPath)
        } catch {
            throw ConfigurationError("tls_cert \(certPath) could not be read as a PEM certificate chain")
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw ConfigurationError("tls_key \(keyPath) could not be read as a PEM private key")
        }
        guard !chain.isEmpty else { throw ConfigurationError("tls_cert \(certPath) holds no certificate") }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        return try .tls(.http1(), tlsConfiguration: tls)
    }
}
