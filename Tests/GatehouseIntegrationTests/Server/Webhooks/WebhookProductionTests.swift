import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42, production mode with a real receiver: `gatehouse serve --mode production` refuses callbacks to internal
/// addresses and plain http, so an operator whose receivers run on an internal network names it in
/// `outbound.allowed_networks` and gives the private CA that issued their certificates in `outbound.ca_file`. The
/// receiver written to Facebook's documentation serves HTTPS here with a certificate from a CA made by the test.
@Suite(.serialized, .tags(.process)) struct WebhookProductionTests {
    /// `gatehouse serve --mode production` whose config file holds `outbound` (nothing when `outbound` is empty),
    /// on SQLite in its data folder or on `database`, with an admin token, and an app made through the admin API.
    struct Production {
        let dir: String
        let server: ServedGatehouse
        let token: String
        let appID: String
        let secret = "hooks-secret-1"
        var appToken: String { "\(appID)|\(secret)" }
        var subscriptions: String { "\(server.baseURL)/v27.0/\(appID)/subscriptions" }
        var admin: String { server.baseURL + "/admin/api/v1" }

        static func start(outbound: String, database: String? = nil) async throws -> Production {
            let dir = try CLIProcess.temporaryDirectory()
            let file = dir + "/gatehouse.yaml"
            try outbound.write(toFile: file, atomically: true, encoding: .utf8)
            let storage = database.map { ["--database", $0] } ?? []
            let made = try await CLIProcess.run(
                ["admin", "token", "create", "--name", "hooks", "--json", "--data-dir", dir] + storage)
            #expect(made.status == 0, "\(made.stderr)")
            let token = try #require((made.json as? [String: Any])?["token"] as? String)
            let server = try await serve(dir: dir, storage: storage)
            let app = try await call(
                "POST", server.baseURL + "/admin/api/v1/apps", token: token,
                json: #"{"name":"Hooks","secret":"hooks-secret-1","redirect_uris":["https://hooks.example/cb"]}"#)
            #expect(app.0 == 201)
            let appID = try #require((app.1 as? [String: Any])?["id"] as? String)
            return Production(dir: dir, server: server, token: token, appID: appID)
        }

        /// `gatehouse serve --mode production --config DIR/gatehouse.yaml` on `storage` (`--database URL` or none).
        static func serve(dir: String, storage: [String]) async throws -> ServedGatehouse {
            // As RemoteCLITests.startProduction: the banner names the public URL, so the port is picked here.
            try await ServedGatehouse.start(
                [
                    "--mode", "production", "--public-url", "https://login.example.com", "--trusted-proxy",
                    "127.0.0.1", "--config", dir + "/gatehouse.yaml",
                ] + storage, dataDirectory: .given(dir), port: try FreeTCPPort.find(),
                environment: ["GATEHOUSE_DATABASE_URL": nil])
        }

        /// A second node on the same PostgreSQL database and config file.
        func anotherNode(database: String) async throws -> ServedGatehouse {
            try await Self.serve(dir: dir, storage: ["--database", database])
        }

        /// Stops the server and waits for it (its database connections close), then removes its folder.
        func stop() async {
            _ = await server.stopAndWait()
            try? FileManager.default.removeItem(atPath: dir)
        }

        /// For a `defer` on SQLite, where nothing waits for the server to go.
        func stopWithoutWaiting() {
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }

        /// `POST /{app-id}/subscriptions` with the app token.
        func subscribe(_ object: String, _ fields: String, callback: String, verifyToken: String = "meatyhamhock")
            async throws -> (Int, Any?)
        {
            try await call(
                "POST", subscriptions,
                form: [
                    ("object", object), ("callback_url", callback), ("fields", fields), ("verify_token", verifyToken),
                    ("access_token", appToken),
                ])
        }

        /// An admin API call with the server's read-write token.
        func admin(_ method: String, _ path: String, json: String? = nil) async throws -> (Int, Any?) {
            try await call(method, admin + path, token: token, json: json)
        }
    }

    /// One HTTP call: (status, body as JSON or nil).
    static func call(
        _ method: String, _ url: String, token: String? = nil, json: String? = nil, form: [(String, String)]? = nil
    ) async throws -> (Int, Any?) {
        try await WebhookReceiverTests.call(method, url, token: token, json: json, form: form)
    }

    static func message(_ answer: (Int, Any?)) -> String? {
        ((answer.1 as? [String: Any])?["error"] as? [String: Any])?["message"] as? String
    }

    /// The Facebook-documented receiver over HTTPS with the private CA's leaf for 127.0.0.1; its callback URL.
    static func startHTTPSReceiver(secret: String, out: String, certificates: CLITrustTests.Certificates)
        async throws -> (ChildProcess, String)
    {
        let receiver = try await ChildProcess.start(
            "python3",
            arguments: [
                WebhookReceiverTests.receiverScript, secret, "meatyhamhock", out, certificates.leafPath,
                certificates.leafKeyPath,
            ])
        let port = try #require(
            await receiver.waitForPort(after: "listening on", timeout: .seconds(30)), "\(receiver.output)")
        return (receiver, "https://127.0.0.1:\(port)/webhook")
    }

    /// On SQLite, and on PostgreSQL (where production mode is the default).
    @Test(arguments: [false, true])
    func anAllowedNetworksReceiverWithAPrivateCAGetsEveryChangeSignedInProduction(onPostgreSQL: Bool) async throws {
        let certificates = try CLITrustTests.Certificates.make()
        defer { certificates.scratch.remove() }
        let database = onPostgreSQL ? try await PostgresTestDatabase.create() : nil
        let outbound = "outbound:\n  allowed_networks: [127.0.0.1/32]\n  ca_file: \(certificates.caPath)\n"
        do {
            let server = try await Production.start(outbound: outbound, database: database)
            do {
                try await Self.everyChangeArrivesSigned(server, certificates: certificates)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        } catch {
            if let database { try? await PostgresTestDatabase.drop(database) }
            throw error
        }
        if let database { try? await PostgresTestDatabase.drop(database) }
    }

    /// Subscribes `user` and `permissions` to the HTTPS receiver, makes a person decline then grant email, change
    /// their address and remove the app through the admin API, and checks what the receiver got.
    static func everyChangeArrivesSigned(_ server: Production, certificates: CLITrustTests.Certificates)
        async throws
    {
        let out = certificates.scratch.path + "/received.jsonl"
        let (receiver, callback) = try await Self.startHTTPSReceiver(
            secret: server.secret, out: out, certificates: certificates)
        defer { receiver.terminate() }

        // The verification request reaches the receiver, which refuses a wrong verify token.
        let wrong = try await server.subscribe("user", "email", callback: callback, verifyToken: "wrong")
        #expect(wrong.0 == 400)
        #expect(Self.message(wrong) == "(#2200) callback verification failed: Received HTTP code: 403")
        // Production mode still wants https on an allowed network.
        let plain = try await server.subscribe(
            "user", "email", callback: callback.replacingOccurrences(of: "https:", with: "http:"))
        #expect(plain.0 == 400)
        #expect(
            Self.message(plain)
                == "(#2200) callback verification failed: callback URLs must be https:// in production mode")
        for (object, fields) in [("user", "email,name"), ("permissions", "email,connected")] {
            let made = try await server.subscribe(object, fields, callback: callback)
            #expect(made.0 == 200)
            #expect((made.1 as? [String: Any])?["success"] as? Bool == true)
        }
        let listed = try await Self.call("GET", server.subscriptions + "?access_token=\(server.appToken)")
        let objects = ((listed.1 as? [String: Any])?["data"] as? [[String: Any]] ?? []).compactMap {
            $0["callback_url"] as? String == callback ? $0["object"] as? String : nil
        }
        #expect(objects.sorted() == ["permissions", "user"])

        let created = try await server.admin(
            "POST", "/people",
            json:
                #"{"email":"prod.hooked@example.com","password":"hooked-password","first_name":"Prod","last_name":"Hook"}"#
        )
        #expect(created.0 == 201)
        let person = try #require((created.1 as? [String: Any])?["id"] as? String)
        let grant = "/apps/\(server.appID)/grants/\(person)"
        func step(_ expectedLines: Int, _ change: () async throws -> Int) async throws {
            #expect(try await change() < 300)
            try await waitUntil(seconds: 60) { WebhookReceiverTests.received(out).count >= expectedLines }
        }
        try await step(1) { try await server.admin("PUT", grant, json: #"{"granted":[],"declined":["email"]}"#).0 }
        try await step(2) { try await server.admin("PUT", grant, json: #"{"granted":["email"],"declined":[]}"#).0 }
        try await step(3) {
            try await server.admin("PATCH", "/people/\(person)", json: #"{"email":"prod.hooked.new@example.com"}"#).0
        }
        try await step(4) { try await server.admin("DELETE", grant).0 }
        // Past the batching window and another pass: nothing more arrives.
        try await Task.sleep(for: .seconds(3))

        let lines = WebhookReceiverTests.received(out)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0["sha256_ok"] as? Bool == true && $0["sha1_ok"] as? Bool == true })
        let entries = lines.compactMap { $0["entry"] as? [String: Any] }
        let scoped = try #require(entries.first?["id"] as? String)
        #expect(!scoped.isEmpty && scoped != person)
        #expect(
            entries.allSatisfy { $0["id"] as? String == scoped && $0["uid"] as? String == scoped && $0["time"] is Int })
        func changes(_ entry: [String: Any]) -> [String] {
            (entry["changes"] as? [[String: Any]] ?? []).map {
                "\($0["field"] ?? "") \(($0["value"] as? [String: Any])?["verb"] ?? "")"
            }
        }
        #expect(lines.map { $0["object"] as? String } == ["permissions", "permissions", "user", "permissions"])
        #expect(entries.count == 4)
        guard entries.count == 4 else { return }
        #expect(changes(entries[0]) == ["connected connected"])
        #expect(changes(entries[1]) == ["email granted"])
        #expect(entries[2]["changed_fields"] as? [String] == ["email"])
        #expect(changes(entries[3]) == ["email revoked", "connected disconnected"])

        let sent = try await server.admin("GET", "/apps/\(server.appID)/webhooks")
        let items = (sent.1 as? [String: Any])?["data"] as? [[String: Any]] ?? []
        #expect(items.count == 4)
        #expect(items.allSatisfy { $0["status"] as? String == "delivered" && $0["response_status"] as? Int == 200 })
    }

    @Test func withoutAllowedNetworksProductionRefusesAnInternalReceiverAndNamesTheSetting() async throws {
        let certificates = try CLITrustTests.Certificates.make()
        defer { certificates.scratch.remove() }
        let out = certificates.scratch.path + "/received.jsonl"
        let server = try await Production.start(outbound: "")
        defer { server.stopWithoutWaiting() }
        let (receiver, callback) = try await Self.startHTTPSReceiver(
            secret: server.secret, out: out, certificates: certificates)
        defer { receiver.terminate() }
        let refused = try await server.subscribe("user", "email", callback: callback)
        #expect(refused.0 == 400)
        #expect(
            Self.message(refused)
                == "(#2200) callback verification failed: the callback host resolves to an internal address, "
                + "which production mode refuses unless outbound.allowed_networks includes it")
        let listed = try await Self.call("GET", server.subscriptions + "?access_token=\(server.appToken)")
        #expect(((listed.1 as? [String: Any])?["data"] as? [Any])?.isEmpty == true)
        #expect(WebhookReceiverTests.received(out).isEmpty)
    }

    @Test func anAllowedNetworkWithoutTheCAFileRefusesAPrivateCAsReceiverAndNamesTheSetting() async throws {
        let certificates = try CLITrustTests.Certificates.make()
        defer { certificates.scratch.remove() }
        let out = certificates.scratch.path + "/received.jsonl"
        let server = try await Production.start(outbound: "outbound:\n  allowed_networks: 127.0.0.0/8\n")
        defer { server.stopWithoutWaiting() }
        let (receiver, callback) = try await Self.startHTTPSReceiver(
            secret: server.secret, out: out, certificates: certificates)
        defer { receiver.terminate() }
        let refused = try await server.subscribe("permissions", "connected", callback: callback)
        #expect(refused.0 == 400)
        #expect(
            Self.message(refused)
                == "(#2200) callback verification failed: the callback's TLS certificate is not trusted (a receiver "
                + "whose certificate a private CA issued needs that CA in outbound.ca_file)")
        #expect(WebhookReceiverTests.received(out).isEmpty)
    }

    /// Two production nodes on one PostgreSQL database, the receiver allowed and its CA trusted: changes made through
    /// both nodes at once each reach it exactly once, signed, whichever node's worker sends them.
    @Test func twoProductionNodesOnOnePostgreSQLSendEachChangeOnceToAnAllowedReceiver() async throws {
        let certificates = try CLITrustTests.Certificates.make()
        defer { certificates.scratch.remove() }
        let database = try await PostgresTestDatabase.create()
        let outbound = "outbound:\n  allowed_networks: [127.0.0.1/32]\n  ca_file: \(certificates.caPath)\n"
        var first: Production?
        var second: ServedGatehouse?
        func cleanUp() async {
            if let second { _ = await second.stopAndWait() }
            await first?.stop()
            try? await PostgresTestDatabase.drop(database)
        }
        do {
            let a = try await Production.start(outbound: outbound, database: database)
            first = a
            let b = try await a.anotherNode(database: database)
            second = b
            try await Self.eachChangeOnceAcrossNodes(a, b, certificates: certificates)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    static func eachChangeOnceAcrossNodes(
        _ a: Production, _ b: ServedGatehouse, certificates: CLITrustTests.Certificates
    ) async throws {
        let out = certificates.scratch.path + "/received.jsonl"
        let (receiver, callback) = try await Self.startHTTPSReceiver(
            secret: a.secret, out: out, certificates: certificates)
        defer { receiver.terminate() }
        for (object, fields) in [("user", "email"), ("permissions", "email,connected")] {
            #expect(try await a.subscribe(object, fields, callback: callback).0 == 200)
        }
        let bases = [a.server.baseURL, b.baseURL]
        func admin(_ node: Int, _ method: String, _ path: String, _ json: String) async throws -> Int {
            try await call(method, bases[node % 2] + "/admin/api/v1" + path, token: a.token, json: json).0
        }
        var people: [String] = []
        for i in 0..<4 {
            let made = try await call(
                "POST", bases[i % 2] + "/admin/api/v1/people", token: a.token,
                json:
                    #"{"email":"node\#(i)@example.com","password":"hooked-password","first_name":"N","last_name":"\#(i)"}"#
            )
            people.append(try #require((made.1 as? [String: Any])?["id"] as? String, "\(made)"))
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (i, id) in people.enumerated() {
                group.addTask {
                    try await admin(
                        i + 1, "PUT", "/apps/\(a.appID)/grants/\(id)", #"{"granted":["email"],"declined":[]}"#)
                }
            }
            for try await status in group { #expect(status < 300) }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (i, id) in people.enumerated() {
                group.addTask {
                    try await admin(i, "PATCH", "/people/\(id)", #"{"email":"node\#(i).new@example.com"}"#)
                }
            }
            for try await status in group { #expect(status < 300) }
        }
        func changes() -> [String: [String]] {
            var changes: [String: [String]] = [:]
            for line in WebhookReceiverTests.received(out) {
                guard let entry = line["entry"] as? [String: Any], let id = entry["id"] as? String else { continue }
                changes[id, default: []] +=
                    (entry["changes"] as? [[String: Any]] ?? []).map {
                        "\($0["field"] ?? "") \(($0["value"] as? [String: Any])?["verb"] ?? "")"
                    } + (entry["changed_fields"] as? [String] ?? []).map { "user \($0)" }
            }
            return changes
        }
        try await waitUntil(seconds: 60) { changes().values.reduce(0) { $0 + $1.count } >= 12 }
        // Past the batching window and several passes of both workers: nothing more arrives.
        try await Task.sleep(for: .seconds(4))
        let received = changes()
        #expect(received.count == 4)
        #expect(
            received.values.allSatisfy { $0.sorted() == ["connected connected", "email granted", "user email"] },
            "\(received)")
        let lines = WebhookReceiverTests.received(out)
        #expect(lines.allSatisfy { $0["sha256_ok"] as? Bool == true && $0["sha1_ok"] as? Bool == true })
        let sent = try await call("GET", bases[1] + "/admin/api/v1/apps/\(a.appID)/webhooks", token: a.token)
        let items = (sent.1 as? [String: Any])?["data"] as? [[String: Any]] ?? []
        #expect(items.allSatisfy { $0["status"] as? String == "delivered" && $0["attempts"] as? Int == 1 }, "\(items)")
        let entries = items.map { (($0["payload"] as? [String: Any])?["entry"] as? [Any])?.count ?? 0 }
        #expect(entries.reduce(0, +) == lines.count)
    }
}
