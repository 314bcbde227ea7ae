import ChildProcesses
import Foundation
import GatehouseTestSupport
import GatehouseTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42 item 6: a Webhooks receiver written to Facebook's documentation (`CLI/Interop/facebook_webhook_receiver.py`:
/// it answers the verification request, checks both signatures with the app secret and parses the entries) runs as
/// its own process on loopback. The app subscribes to `user` email and to `permissions` through the Graph API;
/// a person declines then grants email, changes their address and removes the app through the admin API; each change
/// reaches the receiver once, signed and in Facebook's shape.
@Suite(.tags(.process)) struct WebhookReceiverTests {
    static var receiverScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CLI/Interop/facebook_webhook_receiver.py").path
    }

    /// One HTTP call: (status, body as JSON or nil).
    static func call(
        _ method: String, _ url: String, token: String? = nil, json: String? = nil, form: [(String, String)]? = nil
    ) async throws -> (Int, Any?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            var parts = URLComponents()
            parts.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
            request.httpBody = Data((parts.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B").utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }

    /// The receiver's lines so far, parsed.
    static func received(_ file: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func aReceiverWrittenToFacebooksDocsGetsEveryChangeOnceAndSigned() async throws {
        let server = try await ServedGatehouse.start()
        defer { server.stop() }
        let seed = try #require(server.seed)
        let scratch = try ScratchDirectory.create("webhooks")
        defer { scratch.remove() }
        let out = scratch.url.appendingPathComponent("received.jsonl").path
        let receiver = try await ChildProcess.start(
            "python3", arguments: [Self.receiverScript, seed.app.secret, "meatyhamhock", out])
        defer { receiver.terminate() }
        let port = try #require(
            await receiver.waitForPort(after: "listening on", timeout: .seconds(30)), "\(receiver.output)")
        let callback = "http://127.0.0.1:\(port)/webhook"
        let base = server.baseURL, admin = server.baseURL + "/admin/api/v1"
        let appToken = "\(seed.app.id)|\(seed.app.secret)"
        let subscriptions = "\(base)/v21.0/\(seed.app.id)/subscriptions"

        // A wrong verify token: the receiver refuses the verification, and so the subscription.
        let refused = try await Self.call(
            "POST", subscriptions,
            form: [
                ("object", "user"), ("callback_url", callback), ("fields", "email"), ("verify_token", "wrong"),
                ("access_token", appToken),
            ])
        #expect(refused.0 == 400)
        #expect(
            ((refused.1 as? [String: Any])?["error"] as? [String: Any])?["message"] as? String
                == "(#2200) callback verification failed: Received HTTP code: 403")
        for (object, fields) in [("user", "email,name"), ("permissions", "email,connected")] {
            let made = try await Self.call(
                "POST", subscriptions,
                form: [
                    ("object", object), ("callback_url", callback), ("fields", fields),
                    ("verify_token", "meatyhamhock"), ("access_token", appToken),
                ])
            #expect(made.0 == 200)
            #expect((made.1 as? [String: Any])?["success"] as? Bool == true)
        }

        let created = try await Self.call(
            "POST", admin + "/people",
            json: #"{"email":"hooked@example.com","password":"hooked-password","first_name":"Hook","last_name":"Ed"}"#)
        let person = try #require((created.1 as? [String: Any])?["id"] as? String)
        let grant = admin + "/apps/\(seed.app.id)/grants/\(person)"

        // Each step's notification arrives before the next step, so the order below is the order of the changes.
        func step(_ expectedLines: Int, _ change: () async throws -> Int) async throws {
            #expect(try await change() < 300)
            try await waitUntil(seconds: 60) { Self.received(out).count >= expectedLines }
        }
        try await step(1) { try await Self.call("PUT", grant, json: #"{"granted":[],"declined":["email"]}"#).0 }
        try await step(2) { try await Self.call("PUT", grant, json: #"{"granted":["email"],"declined":[]}"#).0 }
        try await step(3) {
            try await Self.call("PATCH", admin + "/people/\(person)", json: #"{"email":"hooked.new@example.com"}"#).0
        }
        try await step(4) { try await Self.call("DELETE", grant).0 }
        // Nothing more arrives (no duplicate) once the outbox has had time for another round.
        try await Task.sleep(for: .seconds(3))

        let lines = Self.received(out)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0["sha256_ok"] as? Bool == true && $0["sha1_ok"] as? Bool == true })
        let entries = lines.compactMap { $0["entry"] as? [String: Any] }
        let scoped = entries.first?["id"] as? String
        #expect(scoped?.isEmpty == false)
        #expect(
            entries.allSatisfy { $0["id"] as? String == scoped && $0["uid"] as? String == scoped && $0["time"] is Int })
        func changes(_ entry: [String: Any]) -> [String] {
            (entry["changes"] as? [[String: Any]] ?? []).map {
                "\($0["field"] ?? "") \(($0["value"] as? [String: Any])?["verb"] ?? "")"
            }
        }
        #expect(lines.map { $0["object"] as? String } == ["permissions", "permissions", "user", "permissions"])
        #expect(changes(entries[0]) == ["connected connected"])
        #expect(changes(entries[1]) == ["email granted"])
        #expect(entries[2]["changed_fields"] as? [String] == ["email"])
        #expect(changes(entries[3]) == ["email revoked", "connected disconnected"])

        // The admin API shows what the app was sent.
        let sent = try await Self.call("GET", admin + "/apps/\(seed.app.id)/webhooks")
        let items = (sent.1 as? [String: Any])?["data"] as? [[String: Any]] ?? []
        #expect(items.count == 4)
        #expect(items.allSatisfy { $0["status"] as? String == "delivered" && $0["response_status"] as? Int == 200 })
    }

    /// The receiver's banner port, once it listens.
    static func startReceiver(secret: String, out: String) async throws -> (ChildProcess, String) {
        let receiver = try await ChildProcess.start(
            "python3", arguments: [Self.receiverScript, secret, "meatyhamhock", out])
        let port = try #require(
            await receiver.waitForPort(after: "listening on", timeout: .seconds(30)), "\(receiver.output)")
        return (receiver, "http://127.0.0.1:\(port)/webhook")
    }

    /// Issue 42 item 4: an app's test drives GatehouseEmulator (in-process, its clock fixed) and asserts what its
    /// handler was sent, with `subscribe` and `waitForWebhooks`.
    @Test func anEmulatorTestWaitsForWhatItsHandlerWasSent() async throws {
        let emulator = try await GatehouseEmulator.start()
        let scratch = try ScratchDirectory.create("webhooks")
        defer { scratch.remove() }
        let out = scratch.url.appendingPathComponent("received.jsonl").path
        let (receiver, callback) = try await Self.startReceiver(secret: emulator.app.secret, out: out)
        defer { receiver.terminate() }
        do {
            try await emulator.subscribe(
                object: "permissions", fields: ["email", "connected"], callbackURL: callback,
                verifyToken: "meatyhamhock")
            do {
                try await emulator.subscribe(
                    object: "user", fields: ["email"], callbackURL: callback, verifyToken: "not-ours")
                Issue.record("a refused verification subscribed")
            } catch let refused as GatehouseAdminError {
                #expect(refused.status == 400)
                #expect(refused.detail == "(#2200) callback verification failed: Received HTTP code: 403")
            }
            let person = try await emulator.createPerson(
                firstName: "Web", lastName: "Hook", email: "webhook@example.com")
            try await emulator.grant(["email"], by: person)
            let sent = try await emulator.waitForWebhooks(count: 1)
            #expect(sent.map(\.changes) == [["connected connected", "email granted"]])
            #expect(sent.first?.object == "permissions")
            #expect(sent.first?.responseStatus == 200)
            try await waitUntil { Self.received(out).count == 1 }
            #expect(Self.received(out).first?["sha256_ok"] as? Bool == true)
        } catch {
            try? await emulator.stop()
            throw error
        }
        try await emulator.stop()
    }
}
