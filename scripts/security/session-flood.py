"""Issue 39 finding 2, measured against running `gatehouse serve` binaries: does a flood of made-up session cookies
make every later cookie-bearing request slower?

    python3 scripts/security/session-flood.py BEFORE_BINARY AFTER_BINARY [FLOOD=30000]

For each binary (development mode, a free loopback port, a temporary data folder): the latency of a cheap page
(`GET /login` carrying a session cookie nobody issued, as any visitor with a stale cookie sends) over 300
requests, then FLOOD requests each with a distinct random session cookie, then the same 300-request measurement.
Prints p50 and p95 in milliseconds, and the server's CPU seconds for the flood."""
import http.client, os, secrets, socket, statistics, subprocess, sys, tempfile, threading, time, shutil, urllib.request


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def wait_ready(base, proc, deadline=120):
    last = "nothing yet"
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit("the server exited with %s before it was ready" % proc.returncode)
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                if r.status == 200: return
                last = "HTTP %d" % r.status
        except Exception as e:  # any request error means "not yet"
            last = repr(e)
        time.sleep(0.2)
    raise SystemExit("the server was not ready after %d s; last saw: %s" % (deadline, last))


def get(conn, cookie):
    conn.request("GET", "/login", headers={"Cookie": "gh_session=" + cookie})
    r = conn.getresponse(); r.read()
    return r.status


def latencies(port, n=300):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        assert get(conn, secrets.token_urlsafe(24)) == 200
        out.append((time.perf_counter() - t) * 1000)
    conn.close()
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.95)]


def flood(port, total, threads=4):
    def worker(count):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(count):
            get(conn, secrets.token_urlsafe(24))
        conn.close()
    ts = [threading.Thread(target=worker, args=(total // threads,)) for _ in range(threads)]
    for t in ts: t.start()
    for t in ts: t.join()


def cpu(pid):
    f = open("/proc/%d/stat" % pid).read().split()
    return (int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")


def run(binary, label, total):
    d = tempfile.mkdtemp(prefix="gh-flood-")
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", d],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready("http://127.0.0.1:%d" % port, proc)
        p50, p95 = latencies(port)
        print("%s: cheap page before the flood: p50 %.2f ms, p95 %.2f ms" % (label, p50, p95))
        c0, t0 = cpu(proc.pid), time.monotonic()
        flood(port, total)
        c1, t1 = cpu(proc.pid), time.monotonic()
        print("%s: %d requests with distinct random session cookies: %.1f s, %.1f s of server CPU" % (
            label, total, t1 - t0, c1 - c0))
        p50, p95 = latencies(port)
        print("%s: cheap page after the flood:  p50 %.2f ms, p95 %.2f ms" % (label, p50, p95))
    finally:
        proc.terminate()
        try: proc.wait(timeout=10)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 3: raise SystemExit(__doc__)
    total = int(sys.argv[3]) if len(sys.argv) > 3 else 30000
    run(sys.argv[1], "before", total)
    run(sys.argv[2], "after", total)
