import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42 item 6 (events): a sink receiver on loopback that first fails (HTTP 500), then answers too late (the
/// sink's two-second timeout), then recovers. Every event of the sink's types arrives with a valid signature;
/// an event that arrives more than once arrives with the same id and the same body.
@Suite(.tags(.process)) struct EventSinkDeliveryTests {
    /// Answers 500 to the first two requests, sleeps past the sink's timeout on the next two, then 200. Writes one
    /// JSON line per request: the event id header, whether the signature checks out, the body and the answer.
    static let receiver = #"""
        import hashlib, hmac, http.server, json, sys, threading, time
        secret, out = sys.argv[1].encode(), sys.argv[2]
        lock, count = threading.Lock(), [0]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    count[0] += 1
                    n = count[0]
                answer = 500 if n <= 2 else ("slow" if n <= 4 else 200)
                expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
                record = {"id": self.headers.get("X-Gatehouse-Event-Id"), "answer": answer, "body": body.decode(),
                          "signed": hmac.compare_digest(expected, self.headers.get("X-Gatehouse-Signature", ""))}
                with lock, open(out, "a") as f:
                    f.write(json.dumps(record) + "\n")
                if answer == "slow":
                    time.sleep(4)
                    answer = 200
                try:
                    self.send_response(answer)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening on", server.server_address[1], flush=True)
        server.serve_forever()
        """#

    static func post(_ url: String, _ json: String) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static func events(_ admin: String) async throws -> [[String: Any]] {
        let url = URL(string: admin + "/events?type=admin.write,token.issued&limit=200")!
        let (data, _) = try await URLSession.shared.data(from: url)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["data"] as? [[String: Any]] ?? []
    }

    @Test func everyEventArrivesThroughFailuresAndTimeoutsAndRepeatsKeepTheirId() async throws {
        let scratch = try ScratchDirectory.create("event-sink")
        defer { scratch.remove() }
        let out = scratch.url.appendingPathComponent("received.jsonl").path
        let secret = "sink-secret-0123456789"
        let receiver = try await ChildProcess.start("python3", arguments: ["-u", "-c", Self.receiver, secret, out])
        defer { receiver.terminate() }
        let port = try #require(
            await receiver.waitForPort(after: "listening on", timeout: .seconds(30)), "\(receiver.output)")
        let sinks =
            #"[{"name":"ops","url":"http://127.0.0.1:\#(port)/events","secret":"\#(secret)","#
            + #""types":["admin.write","token.issued"],"timeout_seconds":2}]"#
        let server = try await ServedGatehouse.start(["--event-sinks", sinks])
        defer { server.stop() }
        let appID = try #require(server.seed?.app.id)
        let personID = try #require(server.seed?.users.first?.id)
        let admin = server.baseURL + "/admin/api/v1"

        for _ in 0..<3 {
            #expect(
                try await Self.post(admin + "/tokens", #"{"app_id":"\#(appID)","person_id":"\#(personID)"}"#) == 201)
        }

        // Retries wait 5 s, 30 s, 2 min …: the emulator's clock is moved on until every event has been answered 200.
        var delivered = false
        for _ in 0..<60 where !delivered {
            try await Task.sleep(for: .seconds(1))
            let stored = Set(try await Self.events(admin).compactMap { $0["id"] as? String })
            let answered = Set(
                WebhookReceiverTests.received(out).filter { $0["answer"] as? Int == 200 }.compactMap {
                    $0["id"] as? String
                })
            delivered = !stored.isEmpty && stored.isSubset(of: answered)
            if !delivered { _ = try await Self.post(admin + "/clock/advance", #"{"by":120}"#) }
        }
        #expect(delivered, "not every event reached the sink: \(WebhookReceiverTests.received(out))")

        let received = WebhookReceiverTests.received(out)
        let stored = try await Self.events(admin)
        let storedIDs = Set(stored.compactMap { $0["id"] as? String })
        // The receiver failed twice and was too slow twice before it recovered.
        #expect(received.filter { $0["answer"] as? Int == 500 }.count == 2)
        #expect(received.filter { $0["answer"] as? String == "slow" }.count == 2)
        #expect(received.allSatisfy { $0["signed"] as? Bool == true })
        // Nothing arrives that was not stored, and an event that arrives again is the same event.
        var bodies: [String: Set<String>] = [:]
        for line in received {
            let id = try #require(line["id"] as? String)
            #expect(storedIDs.contains(id))
            bodies[id, default: []].insert(line["body"] as? String ?? "")
        }
        #expect(bodies.values.allSatisfy { $0.count == 1 })
        for (id, body) in bodies {
            let event = try #require(
                try JSONSerialization.jsonObject(with: Data(body.first!.utf8)) as? [String: Any])
            #expect(event["id"] as? String == id)
        }
        // A timed-out attempt that the receiver did get arrives twice, with the same id.
        let repeated = bodies.keys.filter { id in received.filter { $0["id"] as? String == id }.count > 1 }
        #expect(!repeated.isEmpty)
        #expect(stored.contains { $0["type"] as? String == "token.issued" })
    }
}
