import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Issue 42: Webhooks across two nodes on one PostgreSQL database. Both nodes run the webhook worker over the one
/// `webhook_deliveries` table; a batch is claimed by one compare-and-set, so each change reaches the receiver
/// exactly once whichever node made it and whichever node sends it.
extension TwoNodeTests {
    @Test func webhooksMadeOnEitherNodeReachTheReceiverExactlyOnceAndSigned() async throws {
        let cluster = try await Cluster.start()
        let scratch = try ScratchDirectory.create("two-node-webhooks")
        do {
            let (a, b) = (cluster.nodes[0], cluster.nodes[1])
            let (appID, secret) = try a.demoApp()
            let out = scratch.path + "/received.jsonl"
            let (receiver, callback) = try await WebhookReceiverTests.startReceiver(secret: secret, out: out)
            defer { receiver.terminate() }
            @Sendable func call(_ method: String, _ url: String, _ json: String?, _ form: [(String, String)]?)
                async throws -> (Int, Any?)
            { try await WebhookReceiverTests.call(method, url, json: json, form: form) }
            // Subscribed on node A.
            for (object, fields) in [("user", "email,name"), ("permissions", "email,connected")] {
                let made = try await call(
                    "POST", "\(a.baseURL)/v27.0/\(appID)/subscriptions",
                    nil,
                    [
                        ("object", object), ("callback_url", callback), ("fields", fields),
                        ("verify_token", "meatyhamhock"), ("access_token", "\(appID)|\(secret)"),
                    ])
                #expect(made.0 == 200, "\(made.1 ?? "no body")")
            }
            // Node B sees the subscriptions A made (the same table).
            let listed = try await call(
                "GET", "\(b.baseURL)/v27.0/\(appID)/subscriptions?access_token=\(appID)%7C\(secret)", nil, nil)
            #expect(((listed.1 as? [String: Any])?["data"] as? [Any])?.count == 2)

            func admin(_ node: ServedGatehouse, _ method: String, _ path: String, _ json: String? = nil)
                async throws -> (Int, Any?)
            {
                try await call(method, node.baseURL + "/admin/api/v1" + path, json, nil)
            }
            func person(_ node: ServedGatehouse, _ name: String) async throws -> String {
                let made = try await admin(
                    node, "POST", "/people",
                    #"{"email":"\#(name)@example.com","password":"hooked-password","first_name":"\#(name)","last_name":"Node"}"#
                )
                return try #require((made.1 as? [String: Any])?["id"] as? String, "\(made)")
            }

            // One person's declined-then-granted email, email change and app removal, alternating the nodes; each
            // change is waited for, so the order received is the order made.
            let first = try await person(b, "first")
            let grant = "/apps/\(appID)/grants/\(first)"
            func step(_ lines: Int, _ change: () async throws -> (Int, Any?)) async throws {
                #expect(try await change().0 < 300)
                try await waitUntil(seconds: 60) { WebhookReceiverTests.received(out).count >= lines }
            }
            try await step(1) { try await admin(b, "PUT", grant, #"{"granted":[],"declined":["email"]}"#) }
            try await step(2) { try await admin(a, "PUT", grant, #"{"granted":["email"],"declined":[]}"#) }
            try await step(3) { try await admin(b, "PATCH", "/people/\(first)", #"{"email":"first.new@example.com"}"#) }
            try await step(4) { try await admin(a, "DELETE", grant) }

            // Then a burst: six people, made and changed on both nodes at once, so both workers find due batches.
            var people: [String] = []
            for i in 0..<6 { people.append(try await person(i % 2 == 0 ? a : b, "burst\(i)")) }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for (i, id) in people.enumerated() {
                    group.addTask {
                        try await admin(
                            i % 2 == 0 ? b : a, "PUT", "/apps/\(appID)/grants/\(id)",
                            #"{"granted":["email"],"declined":[]}"#
                        ).0
                    }
                }
                for try await status in group { #expect(status < 300) }
            }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for (i, id) in people.enumerated() {
                    group.addTask {
                        try await admin(
                            i % 2 == 0 ? a : b, "PATCH", "/people/\(id)", #"{"email":"burst\#(i).new@example.com"}"#
                        ).0
                    }
                }
                for try await status in group { #expect(status < 300) }
            }
            // Every change a burst person makes, by app-scoped id: 6 × (connected, email granted, email changed).
            func burstChanges() -> [String: [String]] {
                var changes: [String: [String]] = [:]
                for line in WebhookReceiverTests.received(out).dropFirst(4) {
                    guard let entry = line["entry"] as? [String: Any], let id = entry["id"] as? String else { continue }
                    let made =
                        (entry["changes"] as? [[String: Any]] ?? []).map {
                            "\($0["field"] ?? "") \(($0["value"] as? [String: Any])?["verb"] ?? "")"
                        } + (entry["changed_fields"] as? [String] ?? []).map { "user \($0)" }
                    changes[id, default: []] += made
                }
                return changes
            }
            try await waitUntil(seconds: 60) { burstChanges().values.reduce(0) { $0 + $1.count } >= 18 }
            // Past the batching window and several more passes of both workers: nothing more arrives.
            try await Task.sleep(for: .seconds(4))

            let lines = WebhookReceiverTests.received(out)
            #expect(lines.allSatisfy { $0["sha256_ok"] as? Bool == true && $0["sha1_ok"] as? Bool == true })
            #expect(
                lines.prefix(4).map { $0["object"] as? String } == [
                    "permissions", "permissions", "user", "permissions",
                ])
            let changes = burstChanges()
            #expect(changes.count == 6)
            #expect(
                changes.values.allSatisfy {
                    $0.sorted() == ["connected connected", "email granted", "user email"]
                }, "\(changes)")
            // The admin API on either node shows one row per delivery, each delivered at its first attempt.
            let sent = try await admin(b, "GET", "/apps/\(appID)/webhooks")
            let items = (sent.1 as? [String: Any])?["data"] as? [[String: Any]] ?? []
            // Each received line is one entry of one delivery's payload: the rows' entries add up to the lines.
            let entries = items.map { (($0["payload"] as? [String: Any])?["entry"] as? [Any])?.count ?? 0 }
            #expect(entries.reduce(0, +) == lines.count)
            #expect(
                items.allSatisfy { $0["status"] as? String == "delivered" && $0["attempts"] as? Int == 1 }, "\(items)")
            print(
                "Two nodes: \(lines.count) webhook entries in \(items.count) deliveries, each change once "
                    + "(\(changes.count) burst people)")
        } catch {
            scratch.remove()
            await cluster.stop()
            throw error
        }
        scratch.remove()
        await cluster.stop()
    }
}
