import ChildProcesses
import Foundation
import Testing
@testable import GatehouseKit
import GatehouseKitTestSupport
import GatehouseTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Profile against the live server", .tags(.process))
struct ProfileLiveTests {
    typealias F = SessionKitFixtures

    /// A live server, an environment pointing at it, and Alice's token for `scope`.
    static func setUp(scope: [String], profileCache: (any ProfileCaching)? = nil, clock: F.Clock = F.Clock())
        async throws -> (LiveServer, GatehouseKitEnvironment, AccessToken)
    {
        let server = try await LiveServer()
        let environment = F.environment(clock: clock, profileCache: profileCache, settings: server.settings())
        let token = try await F.liveToken(server, user: server.users[0], scope: scope, environment: environment)
        return (server, environment, token)
    }

    @Test("loadCurrentProfile returns the fields the granted permissions allow")
    func fieldsForPermissions() async throws {
        let clock = F.Clock()
        let (server, environment, token) = try await Self.setUp(scope: ["email", "user_birthday"], clock: clock)
        defer { server.stop() }
        #expect(token.permissions == ["public_profile", "email", "user_birthday"])
        let changes = F.Recorder(.ProfileDidChange, on: environment)
        let profile = try await F.with(environment) { () async throws -> Profile? in
            AccessToken.current = token
            return try await Profile.loadCurrentProfile()
        }
        let loaded = try #require(profile)
        #expect(loaded.userID == token.userID)
        #expect(loaded.name == "Alice Anders")
        #expect(loaded.firstName == "Alice")
        #expect(loaded.lastName == "Anders")
        #expect(loaded.middleName == nil)
        #expect(loaded.email == "alice@gatehouse.test")
        #expect(loaded.birthday == ProfileResponse.birthday(from: "04/12/1990"))
        #expect(loaded.friendIDs == nil)
        #expect(loaded.linkURL == nil)
        #expect(loaded.imageURL == nil)
        #expect(loaded.refreshDate == clock.now())
        #expect(environment.currentProfile == loaded)
        #expect(changes.count == 1)
        #expect(changes.all.first?[ProfileChangeNewKey] as? Profile == loaded)
    }

    @Test("without the email permission there is no email")
    func fieldsWithoutEmail() async throws {
        let (server, environment, token) = try await Self.setUp(scope: [])
        defer { server.stop() }
        let profile = try await F.with(environment) { () async throws -> Profile? in
            AccessToken.current = token
            return try await Profile.loadCurrentProfile()
        }
        #expect(profile?.email == nil)
        #expect(profile?.birthday == nil)
        #expect(profile?.name == "Alice Anders")
    }

    @Test("a profile under 24 hours old is not fetched again; an older one is")
    func twentyFourHourRule() async throws {
        let clock = F.Clock()
        let (server, environment, token) = try await Self.setUp(scope: ["email"], clock: clock)
        defer { server.stop() }
        try await F.with(environment) { () async throws in
            AccessToken.current = token
            let first = try #require(try await Profile.loadCurrentProfile())
            let loadedAt = clock.now()
            clock.advance(by: 23 * 3600)
            let again = try await Profile.loadCurrentProfile()
            #expect(again?.refreshDate == loadedAt)  // no second fetch
            #expect(again == first)
            clock.advance(by: 3600 + 1)
            let refetched = try #require(try await Profile.loadCurrentProfile())
            #expect(refetched.refreshDate == clock.now())
            #expect(refetched.userID == first.userID)
            #expect(Profile.current == refetched)
        }
    }

    @Test("imageURL answers with a real PNG, for a token and for the client token")
    func pictureIsPNG() async throws {
        let (server, environment, token) = try await Self.setUp(scope: [])
        defer { server.stop() }
        let profile = Profile(
            userID: token.userID, firstName: nil, middleName: nil, lastName: nil, name: nil, linkURL: nil,
            refreshDate: nil)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for withToken in [true, false] {
            let url = try await F.with(environment) { () async throws -> URL in
                AccessToken.current = withToken ? token : nil
                return try #require(profile.imageURL(forMode: .normal, size: CGSize(width: 100, height: 100)))
            }
            #expect(url.path == "/v27.0/\(token.userID)/picture")
            let (data, response) = try await URLSession(configuration: .ephemeral).data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(
                (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("image/png")
                    == true)
            #expect(Array(data.prefix(8)) == signature)
        }
    }

    @Test("with updates on, a new token loads its person's profile and logout clears it")
    func updatesWithTokenChange() async throws {
        let (server, environment, token) = try await Self.setUp(scope: ["email"])
        defer { server.stop() }
        let changes = F.Recorder(.ProfileDidChange, on: environment)
        await F.with(environment) {
            Profile.isUpdatedWithAccessTokenChange = true
            AccessToken.current = token
        }
        #expect(await changes.wait(for: 1, timeout: 10))
        #expect(environment.currentProfile?.userID == token.userID)
        #expect(environment.currentProfile?.email == "alice@gatehouse.test")
        await F.with(environment) { AccessToken.current = nil }
        #expect(changes.count == 2)
        #expect(environment.currentProfile == nil)
        await F.with(environment) { Profile.isUpdatedWithAccessTokenChange = false }
    }

    @Test("a profile loaded in one environment is restored in a new one without a fetch")
    func restoredInNewEnvironment() async throws {
        let directory = F.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = F.Clock()
        let (server, first, token) = try await Self.setUp(
            scope: ["email"], profileCache: FileProfileCache(directory: directory), clock: clock)
        defer { server.stop() }
        let loaded = try await F.with(first) { () async throws -> Profile? in
            AccessToken.current = token
            return try await Profile.loadCurrentProfile()
        }
        clock.advance(by: 3600)
        let second = F.environment(
            clock: clock, tokenCache: InMemoryTokenCache(accessToken: token),
            profileCache: FileProfileCache(directory: directory), settings: server.settings())
        try await F.with(second) { () async throws in
            #expect(Profile.current == loaded)
            let reloaded = try await Profile.loadCurrentProfile()
            #expect(reloaded == loaded)
            #expect(reloaded?.refreshDate == loaded?.refreshDate)
        }
    }

    @Test("a token the server rejects fails the load with its Graph error and clears the profile")
    func rejectedToken() async throws {
        let (server, environment, token) = try await Self.setUp(scope: [])
        defer { server.stop() }
        let bogus = AccessToken(
            tokenString: "EAAnot-a-real-token", permissions: ["public_profile"], declinedPermissions: [],
            expiredPermissions: [],
            appID: server.appID, userID: token.userID, expirationDate: nil, refreshDate: nil,
            dataAccessExpirationDate: nil)
        await F.with(environment) {
            Profile.current = Profile(
                userID: "someone-else", firstName: nil, middleName: nil, lastName: nil, name: nil, linkURL: nil,
                refreshDate: nil)
            AccessToken.current = bogus
            do {
                _ = try await Profile.loadCurrentProfile()
                Issue.record("the load should fail")
            } catch let error as GraphAPIError {
                #expect(error.code == 190)
                #expect(error.type == "OAuthException")
            } catch {
                Issue.record("unexpected error \(error)")
            }
            #expect(Profile.current == nil)
        }
    }
}
