"""The emulator's rows (issue 43): what a test suite pays, per call, in milliseconds (p50 and p95).

Two sides of one table. The process: `gatehouse serve --mode development` started on a fresh data folder until
its first 200 from /healthz, then, on one such server, each admin API call a suite makes between tests over one
keep-alive connection (reset to empty and to the seed, create an app, a person and a test user, mint a token).
In process: `gatehouse bench emulator` (GatehouseBench's EmulatorProbe), GatehouseTesting's GatehouseEmulator
started and called the same way, plus a whole login by HeadlessLoginPresenter. report.py prints the table.
"""
import http.client
import json
import math
import os
import shutil
import subprocess
import time

from .proc import free_port

# The table's rows: (key, label). A key the process side does not measure shows "—" there.
ROWS = [
    ("start", "start (process: to the first /healthz; in process: `GatehouseEmulator.start()`)"),
    ("reset_empty", "reset to empty (`POST /admin/api/v1/state/reset {\"to\":\"empty\"}`)"),
    ("reset_seed", "reset to the seed (`{\"to\":\"seed\"}`: the demo app, three people, their friendships)"),
    ("create_app", "create an app"),
    ("create_person", "create a person (no password)"),
    ("create_test_user", "create a test user of an app"),
    ("mint_token", "mint a token"),
    ("headless_login", "a login through `HeadlessLoginPresenter` (dialog, password, consent, code exchange)"),
]


def percentile(samples, fraction):
    """Nearest rank, as EmulatorProbe.Row.percentile."""
    ordered = sorted(samples)
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def _row(name, samples):
    return f"{name} {percentile(samples, 0.5):.2f} {percentile(samples, 0.95):.2f} {len(samples)}\n"


class Admin:
    """One keep-alive connection to a development server's admin API."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        t0 = time.perf_counter()
        self.connection.request(method, "/admin/api/v1" + path, body=data, headers=headers)
        response = self.connection.getresponse()
        payload = response.read()
        took = (time.perf_counter() - t0) * 1000
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {response.status} {payload[:300]!r}")
        return (json.loads(payload) if payload else None), took


def measure(tool, binary, work, cpu, starts, iterations):
    """Writes WORK/emulator-process and WORK/emulator-inprocess ("name p50 p95 n" a line)."""
    process = {}
    # ---- start to the first /healthz, each on a fresh data folder (migrations and the seed included) ----
    for i in range(starts):
        folder = work / f"emulator-start-{i}"
        port = free_port()
        log = open(work / "emulator-server.log", "w")
        t0 = time.perf_counter()
        server = subprocess.Popen(["taskset", "-c", cpu, binary, "serve", "--mode", "development", "--port", str(port),
                                   "--data-dir", str(folder), "--log-level", "error"], stdout=log,
                                  stderr=subprocess.STDOUT)
        log.close()
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None:
                tool.fail("the emulator's server exited: " + (work / "emulator-server.log").read_text(errors="replace"))
            time.sleep(0.002)
        process.setdefault("start", []).append((time.perf_counter() - t0) * 1000)
        if i < starts - 1:
            server.terminate()
            server.wait()
            shutil.rmtree(folder, ignore_errors=True)
    # ---- the admin API's calls, on the last server ----
    try:
        admin = Admin(port)
        for i in range(iterations):
            for key, target in (("reset_empty", "empty"), ("reset_seed", "seed")):
                _, took = admin.call("POST", "/state/reset", {"to": target})
                process.setdefault(key, []).append(took)
            app, took = admin.call("POST", "/apps", {"name": f"Probe {i}",
                                                      "redirect_uris": ["https://probe.example/callback"]})
            process.setdefault("create_app", []).append(took)
            person, took = admin.call("POST", "/people", {"first_name": "Pat", "last_name": "Probe",
                                                           "email": f"pat{i}@probe.example"})
            process.setdefault("create_person", []).append(took)
            _, took = admin.call("POST", "/people", {"first_name": "Tess", "last_name": "Probe",
                                                      "email": f"tess{i}@probe.example", "test_user_of": app["id"]})
            process.setdefault("create_test_user", []).append(took)
            _, took = admin.call("POST", "/tokens", {"app_id": app["id"], "person_id": person["id"], "scopes": []})
            process.setdefault("mint_token", []).append(took)
    finally:
        server.terminate()
        server.wait()
    with open(work / "emulator-process", "w") as f:
        for key, _ in ROWS:
            if key in process:
                f.write(_row(key, process[key]))
    # ---- in process: GatehouseTesting's emulator (binaries from before `bench emulator` skip it) ----
    help_text = subprocess.run([binary, "bench", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True).stdout
    with open(work / "emulator-inprocess", "w") as f:
        if " emulator" in help_text:
            tool.run(["taskset", "-c", cpu, binary, "bench", "emulator", "--iterations", str(iterations),
                      "--starts", str(starts)], stdout=f, cwd=work, env=dict(os.environ, TMPDIR=str(work)))
    tool.say("emulator rows: " + (work / "emulator-process").read_text().replace("\n", "; ")
             + " | in process: " + (work / "emulator-inprocess").read_text().replace("\n", "; "))
