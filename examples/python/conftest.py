"""pytest fixtures that give each test a Gatehouse server in a known state, driven over HTTP only.

With GATEHOUSE_URL set (and GATEHOUSE_ADMIN_TOKEN for a production server) the tests use that server, wherever it
runs: a container, another host. Otherwise the fixture starts `gatehouse serve` itself (GATEHOUSE_BIN, else
`gatehouse` on the PATH) in production mode on a free loopback port, with an admin token made for the run.
Before every test the state is reset to empty through the admin API.
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import requests


class Admin:
    """A thin client for /admin/api/v1: every call sends the admin token and fails loudly on an error."""

    def __init__(self, base_url, token):
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = "Bearer " + token

    def call(self, method, path, body=None, expect=(200, 201, 204)):
        response = self.session.request(method, self.base_url + "/admin/api/v1" + path, json=body)
        if response.status_code not in expect:
            raise AssertionError(f"{method} {path} answered {response.status_code}: {response.text}")
        return response.json() if response.content else None

    def reset(self):
        return self.call("POST", "/state/reset", {"to": "empty"})

    def create_app(self, **fields):
        return self.call("POST", "/apps", fields)

    def create_person(self, **fields):
        return self.call("POST", "/people", fields)

    def mint_token(self, app_id, person_id, scopes):
        return self.call("POST", "/tokens", {"app_id": app_id, "person_id": person_id, "scopes": scopes})

    def mint_code(self, app_id, person_id, redirect_uri, scopes):
        return self.call("POST", "/codes", {"app_id": app_id, "person_id": person_id, "redirect_uri": redirect_uri, "scopes": scopes})

    def revoke_token(self, token_id):
        return self.call("DELETE", f"/tokens/{token_id}")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server():
    binary = os.environ.get("GATEHOUSE_BIN") or shutil.which("gatehouse")
    if not binary:
        pytest.fail("set GATEHOUSE_URL, or GATEHOUSE_BIN, or put gatehouse on the PATH")
    data_dir = tempfile.mkdtemp(prefix="gatehouse-pytest-")
    # The first admin token is made on the server's own data folder, before it starts; every later step is HTTP.
    made = subprocess.run([binary, "admin", "token", "create", "--name", "pytest", "--data-dir", data_dir, "--json"],
                          check=True, capture_output=True, text=True)
    token = json.loads(made.stdout)["token"]
    port = _free_port()
    server = subprocess.Popen(
        [binary, "serve", "--mode", "production", "--port", str(port), "--data-dir", data_dir,
         "--public-url", "https://login.example.test", "--trusted-proxy", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"gatehouse serve exited: {server.stderr.read()}")
        try:
            if requests.get(base_url + "/healthz", timeout=1).ok:
                return base_url, token, server, data_dir
        except requests.ConnectionError:
            time.sleep(0.1)
    server.kill()
    pytest.fail("gatehouse serve did not answer /healthz within 60 s")


@pytest.fixture(scope="session")
def gatehouse():
    """(base URL, admin token) of the server the tests drive."""
    if os.environ.get("GATEHOUSE_URL"):
        yield os.environ["GATEHOUSE_URL"].rstrip("/"), os.environ.get("GATEHOUSE_ADMIN_TOKEN")
        return
    base_url, token, server, data_dir = _start_server()
    yield base_url, token
    server.terminate()
    server.wait(timeout=30)
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def admin(gatehouse):
    """The admin API, on a server reset to empty before the test."""
    client = Admin(*gatehouse)
    client.reset()
    return client
