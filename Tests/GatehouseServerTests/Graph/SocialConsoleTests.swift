import Foundation
import GatehouseProtocol
import GatehouseCore
import GatehouseServer
import GatehouseStorage
import HTTPTypes
import HummingbirdTesting
import Testing

/// Posts and requests in the developer console, and in export/import.
@Suite struct SocialConsoleTests {
    static func seed(_ server: TestServer) async throws -> (post: PostRecord, request: AppRequestRecord) {
        let now = server.clock.now()
        let post = PostRecord(
            id: "5550001", appID: server.app.id, authorID: server.alice.id, message: "Hello <world>",
            link: "https://example.com", audience: .onlyMe, createdAt: now)
        let request = AppRequestRecord(
            requestID: "7770001", appID: server.app.id, senderID: server.alice.id, recipientID: server.bob.id,
            message: "Come play", data: "lvl=2", createdAt: now)
        try await server.services.storage.posts.insert(post)
        try await server.services.storage.requests.insert([request])
        return (post, request)
    }

    @Test func consoleListsAndDeletesPostsAndRequests() async throws {
        let server = try await TestServer.make()
        let (post, request) = try await Self.seed(server)
        let alice = try await server.scopedID(server.alice)
        try await server.run { client in
            let browser = Browser(client)
            let page = try await browser.get("/console/social")
            #expect(page.status == .ok)
            #expect(page.text.contains("<h1>Posts and requests</h1>"))
            #expect(page.text.contains("<a href=\"/console/social\" aria-current=\"page\">Posts &amp; requests</a>"))
            #expect(
                page.text.contains(
                    "<td class=\"mono\">\(alice)_\(post.id)</td><td>Test App</td><td>Alice Anders</td><td>Only me</td><td>Hello &lt;world&gt;</td>"
                ))
            #expect(
                page.text.contains(
                    "<td class=\"mono\">\(request.requestID)</td><td>Test App</td><td>Alice Anders</td><td>Bob Brown</td><td>Come play</td>"
                ))
            let csrf = try #require(Browser.hiddenValue("csrf_token", in: page.text))
            let forged = try await browser.post("/console/posts/\(post.id)/delete", form: [])
            #expect(forged.status == .forbidden)
            let deleted = try await browser.post("/console/posts/\(post.id)/delete", form: [("csrf_token", csrf)])
            #expect(deleted.location == "/console/social?notice=cleared")
            #expect(try await server.services.storage.posts.find(id: post.id) == nil)
            let gone = try await browser.post(
                "/console/requests/\(request.requestID)/delete",
                form: [("csrf_token", csrf), ("recipient", server.bob.id)])
            #expect(gone.status == .seeOther)
            #expect(try await server.services.storage.requests.recipients(requestID: request.requestID).isEmpty)
            let empty = try await browser.get("/console/social?app=\(server.app.id)")
            #expect(empty.text.contains("No posts.") && empty.text.contains("No app requests."))
        }
    }

    @Test func exportAndImportCarryPostsRequestsAndTheAudience() async throws {
        let server = try await TestServer.make()
        let (post, request) = try await Self.seed(server)
        _ = try await server.token(
            for: server.alice, granted: ["public_profile", "publish_actions"], audience: .everyone)
        let transfer = StateTransfer(services: server.services)
        let state = try await transfer.export()
        #expect(state.posts == [post])
        #expect(state.appRequests == [request])
        let data = try EmulatorState.encoder.encode(state)
        try await server.services.storage.posts.delete(id: post.id)
        try await transfer.replace(with: try StateTransfer.decode(data))
        #expect(try await server.services.storage.posts.find(id: post.id) == post)
        #expect(
            try await server.services.storage.requests.find(requestID: request.requestID, recipientID: server.bob.id)
                == request)
        #expect(
            try await server.services.storage.grants.find(appID: server.app.id, userID: server.alice.id)?
                .defaultAudience == .everyone)
        try await server.run { _ in }
    }
}
