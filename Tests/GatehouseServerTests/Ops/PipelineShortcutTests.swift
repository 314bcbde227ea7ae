@testable import GatehouseCore
@testable import GatehouseServer
@testable import GatehouseStorage
import Testing
import CoreMetrics
import HTTPTypes

/// The request pipeline's shortcuts (issue 11, item 3) give the same answers as the slow paths they skip.
@Suite struct PipelineShortcutTests {
    /// `isNormal` is true only where `normalized` returns the path unchanged, so the admin gate decides alike.
    @Test func adminGateFastPathAgreesWithNormalization() {
        let paths = [
            "/", "", "/console", "/console/", "/console/apps", "//console/apps", "/./console", "/%63onsole",
            "/a/../console",
            "/admin/export", "/admin", "/me", "/v27.0/me", "/bench/hello", "/.well-known/openid-configuration",
            "/console/.",
            "console", "/a//b", "/a/b/", "/dialog/oauth", "/x%2Fy", "/..", "/a/.hidden",
        ]
        for path in paths {
            if AdminGate.isNormal(path) {
                #expect(AdminGate.normalized(path) == path, "\(path)")
            }
        }
        #expect(AdminGate.isNormal("/bench/hello"))
        #expect(AdminGate.isNormal("/console/apps"))
        #expect(!AdminGate.isNormal("/%63onsole"))
        #expect(!AdminGate.isNormal("//console"))
        #expect(!AdminGate.isNormal("/./console"))
    }

    /// A parameterless route's label is looked up once by route; any other falls back to the path.
    @Test func routeLabelsFromLiteralRoutesMatchClassification() {
        let handles = RouteMetricHandles(metrics: GatehouseMetrics())
        for route in [
            "/me", "/bench/hello", "/oauth/access_token", "/", "/.well-known/openid-configuration", "/a/b/c/d/e",
        ] {
            #expect(RouteMetricHandles.isLiteral(route))
            #expect(handles.label(path: route, endpoint: route) == RouteLabel.classify(route))
            // Asked twice: the remembered label is the same.
            #expect(handles.label(path: route + "/", endpoint: route) == RouteLabel.classify(route + "/"))
        }
        for route in ["/{id}/picture", "/**", "/pictures/:id", "/*/x"] { #expect(!RouteMetricHandles.isLiteral(route)) }
        #expect(handles.label(path: "/1234/picture", endpoint: "/{id}/picture") == "/{id}/picture")
        #expect(handles.label(path: "/v27.0/me/friends", endpoint: "/**") == "/me/friends")
        #expect(handles.label(path: "/nowhere", endpoint: nil) == "/{x}")
    }

    /// The metric handles are shared per outcome and count into the same series as before.
    @Test func cachedHandlesCountIntoTheSameSeries() {
        let metrics = GatehouseMetrics()
        let handles = RouteMetricHandles(metrics: metrics)
        for _ in 0..<3 {
            let (counter, timer) = handles.handles(label: "/me", method: .get, status: 200)
            counter.increment()
            timer.recordNanoseconds(1000)
        }
        metrics.request(route: "/me", method: "GET", status: 200, duration: .microseconds(1))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"gatehouse_http_requests_total{route="/me",method="GET",status="200"} 4"#), "\(text)")
        #expect(text.contains(#"gatehouse_http_request_duration_seconds_count{route="/me",method="GET"} 4"#), "\(text)")
    }

    /// The host guard remembers accepted hosts only; a refused host is refused every time.
    @Test func acceptedHostsAreBounded() {
        let hosts = AcceptedHosts()
        for i in 0..<(AcceptedHosts.capacity + 10) { hosts.insert("127.0.0.\(i % 250):\(i)") }
        #expect(hosts.contains("127.0.0.0:0"))
        #expect(!hosts.contains("127.0.0.\((AcceptedHosts.capacity + 5) % 250):\(AcceptedHosts.capacity + 5)"))
        #expect(!hosts.contains("evil.example"))
    }

    /// Without trusted proxies or TLS the forwarded-headers middleware could change nothing, so it is left out.
    @Test func forwardedHeadersOnlyWhenTheyCanMatter() {
        var configuration = GatehouseConfiguration()
        #expect(!ForwardedHeadersMiddleware.isNeeded(configuration))
        configuration.trustedProxies = ["10.0.0.0/8"]
        #expect(ForwardedHeadersMiddleware.isNeeded(configuration))
        configuration.trustedProxies = []
        configuration.tlsCertificatePath = "/c.pem"
        configuration.tlsKeyPath = "/k.pem"
        #expect(ForwardedHeadersMiddleware.isNeeded(configuration))
    }
}
