"""pytest fixtures that give each test a Gatehouse server in a known state, driven over HTTP only.

With GATEHOUSE_URL set (and GATEHOUSE_ADMIN_TOKEN for a production server, started with --allow-state-replace)
the tests use that server, wherever it runs: a container, another host. Otherwise the fixture starts `gatehouse
serve` itself (GATEHOUSE_BIN, else `gatehouse` on the PATH) in production mode on a free loopback port, with an
admin token made for the run. Before every test the state is reset to empty through the admin API.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest
import requests

# Seconds to wait for the server to answer /readyz with 200 (a loaded CI machine can be slow to start it).
READY_TIMEOUT = float(os.environ.get("GATEHOUSE_READY_TIMEOUT", "60"))


class Admin:
    """A thin client for /admin/api/v1: every call sends the admin token and fails loudly on an error."""

    def __init__(self, base_url, token):
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = "Bearer " + token

    def call(self, method, path, body=None, expect=(200, 201, 204)):
        response = self.session.request(method, self.base_url + "/admin/api/v1" + path, json=body, timeout=60)
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


def wait_until_ready(base_url, timeout=READY_TIMEOUT, server=None, log_path=None):
    """Polls /readyz until it answers 200. Any request error or other answer (503 while starting) means "not yet".

    Raises, saying what it last saw and what the server printed, when `server` (a Popen) exits first or when
    `timeout` seconds pass.
    """
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    while True:
        try:
            answer = requests.get(base_url + "/readyz", timeout=5)
            if answer.status_code == 200:
                return
            last = f"{answer.status_code} {answer.text[:200]!r}"
        except (requests.RequestException, OSError) as error:
            last = repr(error)
        if server is not None and server.poll() is not None:
            raise RuntimeError(f"gatehouse serve exited with status {server.returncode} before it was ready"
                               f"{_output(log_path)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base_url}/readyz did not answer 200 within {timeout:g} s; last saw: {last}"
                               f"{_output(log_path)}")
        time.sleep(0.2)


def _output(log_path):
    if not log_path:
        return ""
    with open(log_path, errors="replace") as log:
        return "\ngatehouse serve printed:\n" + log.read()[-4000:]


def _stop(server):
    """SIGTERM, then SIGKILL if the server has not exited within 30 s."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.fixture(scope="session")
def gatehouse():
    """(base URL, admin token) of the server the tests drive."""
    if os.environ.get("GATEHOUSE_URL"):
        base_url = os.environ["GATEHOUSE_URL"].rstrip("/")
        wait_until_ready(base_url)
        yield base_url, os.environ.get("GATEHOUSE_ADMIN_TOKEN")
        return
    binary = os.environ.get("GATEHOUSE_BIN") or shutil.which("gatehouse")
    if not binary:
        pytest.fail("set GATEHOUSE_URL, or GATEHOUSE_BIN, or put gatehouse on the PATH")
    # A SIGTERM to pytest (a CI job's time limit) then ends the run as Ctrl-C does, so the `finally` below runs.
    on_sigterm = signal.signal(signal.SIGTERM, signal.default_int_handler)
    folder = tempfile.mkdtemp(prefix="gatehouse-pytest-")
    data_dir, log_path = os.path.join(folder, "data"), os.path.join(folder, "serve.log")
    server = None
    try:
        os.mkdir(data_dir)
        # The first admin token is made on the server's own data folder, before it starts; every later step is HTTP.
        made = subprocess.run(
            [binary, "admin", "token", "create", "--name", "pytest", "--data-dir", data_dir, "--json"],
            capture_output=True, text=True, timeout=60)
        if made.returncode != 0:
            raise RuntimeError(f"gatehouse admin token create exited with status {made.returncode}:\n"
                               f"{made.stdout}{made.stderr}")
        token = json.loads(made.stdout)["token"]
        port = _free_port()
        with open(log_path, "wb") as log:  # a file, not a pipe: a pipe nobody reads fills up and stalls the server
            server = subprocess.Popen(
                [binary, "serve", "--mode", "production", "--port", str(port), "--data-dir", data_dir,
                 "--public-url", "https://login.example.test", "--trusted-proxy", "127.0.0.1",
                 "--allow-state-replace"],  # production refuses the reset before each test without it
                stdout=log, stderr=subprocess.STDOUT)
        base_url = f"http://127.0.0.1:{port}"
        wait_until_ready(base_url, server=server, log_path=log_path)
        yield base_url, token
    finally:  # on every path: readiness failed, set-up raised, the tests ended or were interrupted
        if server is not None:
            _stop(server)
        shutil.rmtree(folder, ignore_errors=True)
        signal.signal(signal.SIGTERM, on_sigterm)


@pytest.fixture
def admin(gatehouse):
    """The admin API, on a server reset to empty before the test."""
    client = Admin(*gatehouse)
    client.reset()
    return client
