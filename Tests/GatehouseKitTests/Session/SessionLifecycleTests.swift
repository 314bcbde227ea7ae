import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport

@Suite("Session: permissions, refresh, closing and the active session")
struct SessionLifecycleTests {
    typealias F = SessionKitFixtures
    typealias Fakes = SessionFakes

    /// An open session over `cache`, its provider answering `script` after the first login.
    static func openSession(
        cache: any TokenCaching = InMemoryTokenCache(), script: [SessionLoginOutcome] = [],
        refresher: Fakes.Refresher? = nil, first: AccessToken = F.token(declined: ["user_birthday"])
    ) async throws -> (Session, Fakes.LoginProvider, Fakes.HandlerLog) {
        let provider = Fakes.LoginProvider([.success(first)] + script)
        let session = Session(
            environment: F.environment(tokenCache: cache), loginProvider: provider, tokenRefresher: refresher)
        try await session.open()
        let log = Fakes.HandlerLog()
        session.setStateChangeHandler(log.handler)
        return (session, provider, log)
    }

    @Test("granted read permissions extend the token: openTokenExtended, cache updated")
    func readPermissionsGranted() async throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let extended = F.token(
            string: "EAA-extended", permissions: ["public_profile", "email"], declined: ["user_birthday"])
        let (session, provider, log) = try await Self.openSession(
            cache: FileTokenCache(directory: directory), script: [.success(extended)])
        try await session.requestNewReadPermissions(["email"])
        #expect(session.state == .openTokenExtended)
        #expect(log.states == [.openTokenExtended])
        #expect(provider.calls.last == .init(permissions: ["email"], authType: nil, audience: .friends))
        #expect(session.accessToken == extended)
        #expect(session.permissions == ["email", "public_profile"])
        #expect(session.declinedPermissions == ["user_birthday"])
        #expect(FileTokenCache(directory: directory).accessToken == extended)
    }

    @Test("publish permissions carry the default audience")
    func publishPermissions() async throws {
        let extended = F.token(string: "EAA-publish", permissions: ["public_profile", "publish_actions"])
        let (session, provider, log) = try await Self.openSession(script: [.success(extended)])
        let done = Fakes.CompletionLog()
        session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .onlyMe, completion: done.completion)
        #expect(await F.eventually { done.all.count == 1 })
        #expect(done.all.first! == nil)
        #expect(provider.calls.last == .init(permissions: ["publish_actions"], authType: nil, audience: .onlyMe))
        #expect(log.states == [.openTokenExtended])
        #expect(session.accessToken?.hasGranted(.publishActions) == true)
    }

    @Test("refused permissions leave the state and token unchanged")
    func permissionsRefused() async throws {
        let first = F.token(declined: ["user_birthday"])
        let sameGrants = F.token(string: "EAA-again", declined: ["user_birthday", "publish_actions"])
        let (session, _, log) = try await Self.openSession(script: [.success(sameGrants), .cancelled], first: first)
        try await session.requestNewPublishPermissions(["publish_actions"], defaultAudience: .friends)
        #expect(session.state == .open)
        #expect(session.accessToken == first)
        #expect(session.environment.currentAccessToken == first)
        await #expect(throws: SessionError.loginCancelled) { try await session.requestNewReadPermissions(["email"]) }
        #expect(session.state == .open)
        #expect(log.count == 0)
    }

    @Test("asking again for a declined permission uses auth_type rerequest")
    func rerequest() async throws {
        let (session, provider, _) = try await Self.openSession(script: [
            .success(F.token(permissions: ["public_profile", "user_birthday"]))
        ])
        try await session.requestNewReadPermissions(["user_birthday"])
        #expect(provider.calls.last == .init(permissions: ["user_birthday"], authType: "rerequest", audience: .friends))
        #expect(session.state == .openTokenExtended)
    }

    @Test("permissions need an open session, one request at a time")
    func permissionRequestRefusals() async throws {
        let created = Session(environment: F.environment(), loginProvider: Fakes.LoginProvider())
        await #expect(throws: SessionError.notOpen) { try await created.requestNewReadPermissions(["email"]) }
        let (session, provider, _) = try await Self.openSession()
        session.requestNewReadPermissions(["email"], completion: nil)
        #expect(await F.eventually { provider.waitingCount == 1 })
        await #expect(throws: SessionError.loginInProgress) {
            try await session.requestNewReadPermissions(["user_friends"])
        }
        provider.answer(.cancelled)
        session.close()
        await #expect(throws: SessionError.sessionClosed) { try await session.requestNewReadPermissions(["email"]) }
    }

    @Test("refresh extends the token; a failed refresh changes nothing")
    func refresh() async throws {
        let refreshed = F.token(string: "EAA-refreshed", refresh: Date(timeIntervalSince1970: 1_750_000_000))
        let refresher = Fakes.Refresher([.success(refreshed), .failure(.init(reason: "offline"))])
        let (session, _, log) = try await Self.openSession(refresher: refresher)
        try await session.refresh()
        #expect(session.state == .openTokenExtended)
        #expect(session.accessToken == refreshed)
        #expect(session.environment.currentAccessToken == refreshed)
        #expect(refresher.received.map(\.tokenString) == ["EAAtoken-100"])
        await #expect(throws: Fakes.TestError(reason: "offline")) { try await session.refresh() }
        #expect(session.accessToken == refreshed)
        #expect(log.states == [.openTokenExtended])

        let (noRefresher, _, _) = try await Self.openSession()
        await #expect(throws: SessionError.noTokenRefresher) { try await noRefresher.refresh() }
    }

    @Test("close keeps the cached token for the next launch; closeAndClearTokenInformation deletes it")
    func closing() async throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (kept, _, keptLog) = try await Self.openSession(cache: FileTokenCache(directory: directory))
        kept.close()
        #expect(kept.state == .closed)
        #expect(keptLog.states == [.closed])
        let nextLaunch = Session(environment: F.environment(tokenCache: FileTokenCache(directory: directory)))
        #expect(nextLaunch.state == .createdTokenLoaded)

        let (cleared, _, clearedLog) = try await Self.openSession(cache: FileTokenCache(directory: directory))
        cleared.closeAndClearTokenInformation()
        #expect(clearedLog.states == [.closed])
        #expect(cleared.accessToken == nil)
        #expect(cleared.environment.currentAccessToken == nil)
        #expect(FileTokenCache(directory: directory).accessToken == nil)
        #expect(Session(environment: F.environment(tokenCache: FileTokenCache(directory: directory))).state == .created)
    }

    @Test("token changes made elsewhere: a refresh extends, a logout or another person closes")
    func externalTokenChanges() async throws {
        let (session, _, log) = try await Self.openSession()
        let environment = session.environment
        environment.setCurrentAccessToken(F.token(string: "EAA-piggyback-refresh"))
        #expect(session.state == .openTokenExtended)
        #expect(session.accessToken?.tokenString == "EAA-piggyback-refresh")
        environment.checkAccessTokenExpiry()  // not expired: nothing
        environment.setCurrentAccessToken(nil)
        #expect(session.state == .closed)
        #expect(log.states == [.openTokenExtended, .closed])

        let (other, _, _) = try await Self.openSession()
        other.environment.setCurrentAccessToken(F.token(user: "999", string: "EAA-someone-else"))
        #expect(other.state == .closed)

        let loaded = Session(environment: F.environment(tokenCache: InMemoryTokenCache(accessToken: F.token())))
        loaded.environment.setCurrentAccessToken(nil)
        #expect(loaded.state == .created)
        #expect(loaded.accessToken == nil)
    }

    @Test("a dialog that sets AccessToken.current itself is reported once, by the dialog's result")
    func providerSetsCurrentToken() async throws {
        let environment = F.environment()
        let token = F.token(permissions: ["public_profile", "email"])
        let provider = Fakes.LoginProvider([.success(token)]) { outcome in
            if case .success(let token) = outcome { environment.setCurrentAccessToken(token) }
        }
        let session = Session(environment: environment, loginProvider: provider)
        let log = Fakes.HandlerLog()
        session.setStateChangeHandler(log.handler)
        try await session.open()
        #expect(log.states == [.createdOpening, .open])
    }

    // The time limit only catches a deadlock (which would hang forever); it is not a speed bound. A minute was
    // too short for 200 rounds beside other suites on a loaded two-core machine (157 s once).
    @Test("sessions sharing an environment close and refresh concurrently without deadlock", .timeLimit(.minutes(10)))
    func concurrentSessions() async throws {
        for round in 0..<200 {
            let environment = F.environment(tokenCache: InMemoryTokenCache(accessToken: F.token()))
            let refreshed = F.token(string: "EAA-round-\(round)")
            let a = Session(environment: environment)
            let b = Session(environment: environment, tokenRefresher: Fakes.Refresher([.success(refreshed)]))
            a.open(allowLoginUI: false, completion: nil)
            b.open(allowLoginUI: false, completion: nil)
            // Each side's token change reaches the other's observer while both are mid-transition.
            a.setStateChangeHandler { _, _, _ in _ = b.state }
            b.setStateChangeHandler { _, _, _ in _ = a.state }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { a.closeAndClearTokenInformation() }
                group.addTask { try? await b.refresh() }
                group.addTask { environment.setCurrentAccessToken(F.token(string: "EAA-elsewhere-\(round)")) }
            }
            #expect(a.state == .closed)
            #expect(b.state.isClosed || b.state == .openTokenExtended)
        }
    }

    @Test("the active session is per environment and replaced by openActiveSession")
    func activeSession() async throws {
        let token = F.token()
        let environment = F.environment(tokenCache: InMemoryTokenCache(accessToken: token))
        let other = F.environment()
        try await F.with(environment) {
            let first = Session.activeSession
            #expect(first === Session.activeSession)
            #expect(first.state == .createdTokenLoaded)
            let log = Fakes.HandlerLog()
            #expect(
                Session.openActiveSession(
                    withReadPermissions: ["public_profile"], allowLoginUI: false, completionHandler: log.handler))
            let opened = Session.activeSession
            #expect(opened !== first)
            #expect(first.state == .closed)  // replaced sessions are closed, their cache kept
            #expect(opened.state == .open)
            #expect(log.states == [.open])
            #expect(AccessToken.current == token)

            let async = try await Session.openActiveSession(
                withReadPermissions: ["public_profile"], allowLoginUI: false)
            #expect(Session.activeSession === async)
            #expect(opened.state == .closed)
        }
        await F.with(other) {
            #expect(Session.activeSession.state == .created)
            #expect(
                !Session.openActiveSession(
                    withReadPermissions: ["public_profile"], allowLoginUI: false, completionHandler: nil))
            await #expect(throws: SessionError.noCachedToken) {
                try await Session.openActiveSession(withReadPermissions: ["public_profile"], allowLoginUI: false)
            }
            let replacement = Session()
            Session.activeSession = replacement
            #expect(Session.activeSession === replacement)
        }
    }
}
