"""Issue 27 findings 1 and 2, measured against running `gatehouse serve` binaries: a chained batch and a long ?ids=.

    python3 scripts/security/amplification.py BEFORE_BINARY AFTER_BINARY

Prints the response size, time, server CPU and RSS for each; both binaries run in development mode on a free
loopback port with a temporary data folder."""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request, urllib.parse, shutil, resource

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def post(base, path, form, timeout=600):
    data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/x-www-form-urlencoded"})
    t = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read(); status = r.status
    except urllib.error.HTTPError as e:
        body = e.read(); status = e.code
    return status, body, time.monotonic() - t

def chain(n):
    out = []
    for i in range(n):
        prev = "{result=e%d:$.error.message}" % (i - 1)
        url = "x/" + "a" * 300 if i == 0 else "x/%s/%s/" % (prev, prev) + "b" * 300
        out.append({"method": "GET", "relative_url": url, "name": "e%d" % i})
    return json.dumps(out)

def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"): return int(line.split()[1]) // 1024
    return -1

def run(binary, label, chains, id_counts):
    d = tempfile.mkdtemp(prefix="gh-measure-")
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1); break
        except Exception: time.sleep(0.2)
    try:
        print("%s: RSS at start %d MB" % (label, rss(proc.pid)))
        for n in chains:
            form = [("batch", chain(n))]
            status, body, secs = post(base, "/", form)
            print("%s: batch of %d chained entries (%d bytes sent): HTTP %d, %d bytes answered in %.2f s; RSS after %d MB" % (
                label, n, len(urllib.parse.urlencode(form)), status, len(body), secs, rss(proc.pid)))
        for count in id_counts:
            ids = ",".join(str(100000000 + i) for i in range(count))
            form = [("method", "GET"), ("ids", ids)]
            t0 = open("/proc/%d/stat" % proc.pid).read().split()
            status, body, secs = post(base, "/v27.0/", form)
            t1 = open("/proc/%d/stat" % proc.pid).read().split()
            cpu = (int(t1[13]) + int(t1[14]) - int(t0[13]) - int(t0[14])) / os.sysconf("SC_CLK_TCK")
            print("%s: ?ids= with %d ids (%d bytes): HTTP %d in %.2f s, %.2f s of server CPU: %s" % (
                label, count, len(ids), status, secs, cpu, body[:120].decode(errors="replace")))
    finally:
        proc.terminate(); proc.wait(); shutil.rmtree(d, ignore_errors=True)

if __name__ == "__main__":
    before, after = sys.argv[1], sys.argv[2]
    run(before, "before", [17], [16000])
    # 87,000 nine-digit ids fill a form body to just under the 1 MiB limit (each costs 12 bytes: the id and "%2C").
    run(after, "after", [17, 30], [16000, 87000])
