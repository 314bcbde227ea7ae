import Foundation
import GatehouseKitLoopback
import Testing

@Suite struct LoopbackRouteTests {
    static let redirect = "http://127.0.0.1:5555/callback"

    @Test func queryOnTheCallbackCompletesWithTheQuery() {
        #expect(
            LoopbackRoute.route(path: "/callback", query: "code=abc&state=s", redirectURI: Self.redirect)
                == .complete(callbackURL: URL(string: "http://127.0.0.1:5555/callback?code=abc&state=s")!))
    }

    @Test func bareCallbackServesTheFragmentRelay() {
        #expect(LoopbackRoute.route(path: "/callback", query: nil, redirectURI: Self.redirect) == .relayFragment)
        #expect(LoopbackRoute.route(path: "/callback", query: "", redirectURI: Self.redirect) == .relayFragment)
    }

    @Test func relayedFragmentGoesBackIntoTheFragment() {
        #expect(
            LoopbackRoute.route(path: "/callback/complete", query: "access_token=t&state=s", redirectURI: Self.redirect)
                == .complete(callbackURL: URL(string: "http://127.0.0.1:5555/callback#access_token=t&state=s")!))
        #expect(
            LoopbackRoute.route(path: "/callback/complete", query: nil, redirectURI: Self.redirect)
                == .complete(callbackURL: URL(string: Self.redirect)!))
    }

    @Test func otherPathsAreNotServed() {
        #expect(LoopbackRoute.route(path: "/", query: nil, redirectURI: Self.redirect) == nil)
        #expect(LoopbackRoute.route(path: "/favicon.ico", query: nil, redirectURI: Self.redirect) == nil)
        #expect(LoopbackRoute.route(path: "/callback/other", query: "code=1", redirectURI: Self.redirect) == nil)
    }
}

@Suite struct LoopbackPageTests {
    @Test func endingFollowsTheSDKsReadingOfTheCallback() {
        let base = "http://127.0.0.1:1/callback"
        #expect(LoopbackPage.ending(forCallback: URL(string: base + "#access_token=t")!) == .finished)
        #expect(LoopbackPage.ending(forCallback: URL(string: base + "?code=c")!) == .finished)
        #expect(
            LoopbackPage.ending(forCallback: URL(string: base + "?error=access_denied&error_reason=user_denied")!)
                == .cancelled)
        #expect(LoopbackPage.ending(forCallback: URL(string: base)!) == .cancelled)
        #expect(
            LoopbackPage.ending(forCallback: URL(string: base + "#error=x&error_message=It+broke")!)
                == .failed(message: "It broke"))
    }

    @Test func finishedPageSaysTheTabCanBeClosed() {
        let html = LoopbackPage.finished.html
        #expect(html.contains("<title>Login finished</title>"))
        #expect(html.contains("<h1>Login finished</h1>"))
        #expect(html.contains("You can close this tab"))
        #expect(!html.contains("<script"))
    }

    @Test func cancelledAndFailedPages() {
        #expect(LoopbackPage.cancelled.html.contains("<h1>Login cancelled</h1>"))
        let failed = LoopbackPage.failed(message: "<b>bad</b> & 'worse'").html
        #expect(failed.contains("<h1>Login failed</h1>"))
        #expect(failed.contains("&lt;b&gt;bad&lt;/b&gt; &amp; &#39;worse&#39;"))
        #expect(LoopbackPage.alreadyHandled.html.contains("Login already finished"))
    }

    @Test func relayPageResendsTheFragmentWithANoscriptFallback() {
        let html = LoopbackPage.fragmentRelay.html
        #expect(html.contains("location.replace('/callback/complete?' + location.hash.substring(1))"))
        #expect(html.contains("<noscript>"))
        #expect(html.contains("JavaScript is turned off"))
    }
}

@Suite struct SystemBrowserOpenerTests {
    @Test func graphicalSessionNeedsADisplayOnLinux() async {
        #if os(Linux)
        let headless = SystemBrowserOpener(environment: ["PATH": "/usr/bin:/bin"])
        #expect(!headless.hasGraphicalSession)
        #expect(await headless.open(URL(string: "http://127.0.0.1:1/")!) == false)
        #expect(SystemBrowserOpener(environment: ["DISPLAY": ":0"]).hasGraphicalSession)
        #expect(SystemBrowserOpener(environment: ["WAYLAND_DISPLAY": "wayland-0"]).hasGraphicalSession)
        #else
        #expect(SystemBrowserOpener(environment: [:]).hasGraphicalSession)
        #endif
    }

    @Test func browserCommandRunsAndItsExitStatusCounts() async {
        #if os(macOS) || os(Linux)
        let url = URL(string: "http://127.0.0.1:1/callback")!
        // `%s` becomes the URL (`test %s` with the `%s` left in and the URL appended would be a usage error);
        // without `%s` the URL is appended (`test -n URL`).
        #expect(await SystemBrowserOpener(environment: ["BROWSER": "test %s"]).open(url))
        #expect(await SystemBrowserOpener(environment: ["BROWSER": "test -n"]).open(url))
        #expect(await SystemBrowserOpener(environment: ["BROWSER": "false"]).open(url) == false)
        #expect(await SystemBrowserOpener(environment: ["BROWSER": "gatehouse-no-such-browser"]).open(url) == false)
        #endif
    }
}
