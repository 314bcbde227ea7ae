"""scripts/bench --instructions: instructions per request under valgrind's callgrind.

The server runs under callgrind with collection on; after a warm-up the counters are zeroed, exactly N requests
go over one keep-alive connection, and the dump's total divided by N is the cost of one request: every thread of
the process counts (event loops, the SQLite thread pool), the client (this process) does not. Appends
"name instructions_per_request non-200" lines to WORK/instructions, or "valgrind_failed 0 0".
"""
import http.client
import os
import subprocess
import sys
import time
from pathlib import Path


def exact(port, paths, count):
    """COUNT GETs over one keep-alive connection, rotating through PATHS; returns how many were not 200."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    bad = 0
    for i in range(count):
        conn.request("GET", paths[i % len(paths)])
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            bad += 1
    conn.close()
    return bad


def measure(tool, server, binary, work, seed, database, requests):
    work = Path(work)
    with open(work / "instructions", "a") as f:
        record = lambda line: (f.write(line + "\n"), f.flush())  # noqa: E731
        callgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/callgrind.out.%p", "--dump-instr=no"]
        # Valgrind cannot read the DWARF 5 debug info Swift emits; a copy without it keeps the symbols.
        nodebug = work / "gatehouse-nodebug"
        tool.run(["objcopy", "--strip-debug", binary, nodebug])
        # Valgrind 3.19 (Debian 12) dies inside its own code on Swift 6.3 binaries, even on `--help`: say so
        # rather than report nothing. A newer valgrind is needed.
        with open(work / "valgrind-check.log", "w") as log:
            works = subprocess.run(["valgrind", "--tool=none", nodebug, "--help"], stdout=subprocess.DEVNULL,
                                   stderr=log).returncode == 0
        if not works:
            version = subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
            tool.say(f"valgrind {version} cannot run this binary (see below); skipping --instructions")
            check = (work / "valgrind-check.log").read_text(errors="replace").splitlines()
            for line in [l for l in check if any(k in l for k in ("impossible", "Killed by", "VALGRIND INTERNAL"))][:3]:
                print(line, file=sys.stderr)
            record("valgrind_failed 0 0")
            return

        def count(name, paths):
            exact(server.port, paths, requests)  # warm-up, same requests
            tool.run(["callgrind_control", "--zero", server.pid], stdout=subprocess.DEVNULL)
            bad = exact(server.port, paths, requests)
            for old in work.glob("callgrind.out.*"):
                old.unlink()
            tool.run(["callgrind_control", f"--dump={name}", server.pid], stdout=subprocess.DEVNULL)
            time.sleep(1)
            # One file per dump (threads are not separated); "totals:" is its whole cost, "summary:" older valgrinds'.
            totals, summary = 0, 0
            for dump in sorted(work.glob("callgrind.out.*")):
                for line in dump.read_text(errors="replace").splitlines():
                    if line.startswith("totals:"):
                        totals = int(line.split()[1])
                    elif line.startswith("summary:"):
                        summary = int(line.split()[1])
            per_request = (totals or summary) // requests
            record(f"{name} {per_request} {bad}")
            tool.say(f"{name} {per_request} instructions/request (bad {bad})")

        tokens = list(seed["sample_tokens"])
        server.binary, full = str(nodebug), server.binary
        try:
            server.start_reference(callgrind)
            count("reference", ["/bench/hello"])
            server.stop()
            server.start(work / "small", database, callgrind)
            count("hello", ["/bench/hello"])
            count("me", [f"/me?fields=id,name,email&access_token={t}" for t in tokens])
            count("debug_token", [f"/debug_token?input_token={t}&access_token={seed.app}%7C{seed.secret}" for t in tokens])
            server.stop()
        finally:
            server.binary = full
        for old in work.glob("callgrind.out.*"):
            old.unlink()
        os.unlink(nodebug)
