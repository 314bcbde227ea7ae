"""A Webhooks receiver written to Facebook's documentation (developers.facebook.com/docs/graph-api/webhooks/
getting-started), as an app would write one, for WebhookReceiverTests.

Usage: python3 facebook_webhook_receiver.py APP_SECRET VERIFY_TOKEN OUT_FILE [CERT_FILE KEY_FILE]

Listens on 127.0.0.1 (a free port, printed as "listening on PORT"), over HTTPS with CERT_FILE and KEY_FILE (PEM)
when they are given, as a receiver on an internal network whose certificate a private CA issued. A GET is the verification request: it answers
hub.challenge when hub.mode is "subscribe" and hub.verify_token is ours, else 403. A POST is a notification: both
signatures (X-Hub-Signature-256 and X-Hub-Signature, HMACs of the raw body keyed by the app secret) are checked,
the JSON is parsed, and one line per entry is appended to OUT_FILE: the object, the checks and the entry. A bad
signature answers 403 and is recorded too, so the test sees it.
"""
import hashlib
import hmac
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

APP_SECRET, VERIFY_TOKEN, OUT_FILE = sys.argv[1].encode(), sys.argv[2], sys.argv[3]


class Receiver(BaseHTTPRequestHandler):
    def answer(self, status, text=""):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        query = parse_qs(urlparse(self.path).query)
        if query.get("hub.mode") == ["subscribe"] and query.get("hub.verify_token") == [VERIFY_TOKEN]:
            self.answer(200, query.get("hub.challenge", [""])[0])
        else:
            self.answer(403, "verification refused")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        expected256 = "sha256=" + hmac.new(APP_SECRET, raw, hashlib.sha256).hexdigest()
        expected1 = "sha1=" + hmac.new(APP_SECRET, raw, hashlib.sha1).hexdigest()
        sha256_ok = hmac.compare_digest(expected256, self.headers.get("X-Hub-Signature-256", ""))
        sha1_ok = hmac.compare_digest(expected1, self.headers.get("X-Hub-Signature", ""))
        payload = json.loads(raw)
        with open(OUT_FILE, "a") as out:
            for entry in payload.get("entry", []):
                line = {"object": payload.get("object"), "sha256_ok": sha256_ok, "sha1_ok": sha1_ok, "entry": entry}
                out.write(json.dumps(line, sort_keys=True) + "\n")
        self.answer(200 if sha256_ok and sha1_ok else 403, "EVENT_RECEIVED")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
if len(sys.argv) > 5:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[4], sys.argv[5])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening on", server.server_address[1], flush=True)
server.serve_forever()
