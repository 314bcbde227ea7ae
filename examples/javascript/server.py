"""A web app's back end for the quick-start page: serves index.html and reads the JavaScript SDK's cookie.

Usage: python3 server.py PORT GATEHOUSE_URL APP_ID APP_SECRET [API_VERSION]

`/` serves index.html with its placeholders filled and, as the only change a real app makes, the SDK's URL
`https://connect.facebook.net/en_US/sdk.js` replaced by GATEHOUSE_URL/en_US/sdk.js. `/?app_id=…` serves it for
another app. `/server-user` is what a back end does with the `fbsr_{app_id}` cookie the SDK keeps (`cookie: true`):
facebook-sdk 3.1.0 (PyPI), unmodified but for its base-URL global, verifies the signed_request with the app secret and
exchanges its code for a token (`get_user_from_cookie`), then reads `/me` with that token.

It waits for Gatehouse's `/readyz` to answer 200 (GATEHOUSE_READY_TIMEOUT seconds, 60 unless set) before it
listens, since the page loads the SDK from there, and exits saying what it last saw if that never happens.
"""
import http.cookies
import http.server
import json
import os
import pathlib
import sys
import time
import urllib.parse

import facebook  # facebook-sdk
import requests  # facebook-sdk's own dependency

port, gatehouse, app_id, app_secret = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]
api_version = sys.argv[5] if len(sys.argv) > 5 else "v27.0"
facebook.FACEBOOK_GRAPH_URL = gatehouse + "/"
page = (pathlib.Path(__file__).parent / "index.html").read_text()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/":
            query = urllib.parse.parse_qs(url.query)
            html = (page.replace("https://connect.facebook.net/en_US/sdk.js", gatehouse + "/en_US/sdk.js")
                    .replace("{app-id}", query.get("app_id", [app_id])[0]).replace("{api-version}", api_version))
            self.reply(200, "text/html; charset=utf-8", html)
        elif url.path == "/server-user":
            cookies = {name: morsel.value for name, morsel in http.cookies.SimpleCookie(self.headers.get("Cookie", "")).items()}
            user = facebook.get_user_from_cookie(cookies, app_id, app_secret)
            if not user:
                self.reply(200, "application/json", json.dumps({"user": None}))
                return
            me = facebook.GraphAPI(access_token=user["access_token"]).get_object("me")
            self.reply(200, "application/json", json.dumps({"uid": user["uid"], "name": me.get("name"), "id": me.get("id")}))
        else:
            self.reply(404, "text/plain", "not found\n")

    def reply(self, status, content_type, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def wait_until_ready(url, timeout):
    """Any request error or answer but 200 (503 while Gatehouse starts) means "not yet", until `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    while True:
        try:
            answer = requests.get(url + "/readyz", timeout=5)
            if answer.status_code == 200:
                return
            last = f"{answer.status_code} {answer.text[:200]!r}"
        except (requests.RequestException, OSError) as error:
            last = repr(error)
        if time.monotonic() > deadline:
            sys.exit(f"{url}/readyz did not answer 200 within {timeout:g} s; last saw: {last}")
        time.sleep(0.2)


wait_until_ready(gatehouse, float(os.environ.get("GATEHOUSE_READY_TIMEOUT", "60")))
with http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler) as server:  # closed on every way out
    print(f"quick-start page on http://127.0.0.1:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
