"""Profile the server on one route under load: perf's cpu-clock sampling (works without hardware counters, as on
this project's VMs), the server pinned to one core and wrk to the other, like scripts/bench (the same Lua request
script, lua/rotate.lua, and the same request templates, data.py).

  scripts/profile ROUTE [SECONDS]     ROUTE: hello | me | me_cold | debug_token | code_exchange | token_exchange
                                      | consent | consent_many; SECONDS: 8 unless given

Prints req/s, latency and the server's CPU time per request (from /proc, so it holds up on a busy machine
better than req/s), then writes perf.data and a short report (the hottest functions, inclusive, demangled)
to a temporary folder. Uses the release binary in .build-release (run scripts/bench once, or
`swift build -c release --scratch-path .build-release --product gatehouse`); GATEHOUSE_BIN overrides it.
PROFILE_NOPERF=1 measures without perf (its sampling costs a few percent). The journal is off, as in scripts/bench;
PROFILE_JOURNAL=true turns it on. PROFILE_DATABASE=postgres runs on a throwaway PostgreSQL cluster
(scripts/postgres-cluster) instead of SQLite. PROFILE_CODES (40,000) codes are seeded for code_exchange;
me_cold seeds PROFILE_COLD_TOKENS (300,000) more tokens and presents each once.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .data import (CONSENT_PATH, ME_PATH, POSTGRES_CLUSTER, Seed, code_exchange_path, consent, debug_token_path,
                   token_exchange_path)
from .proc import CLK_TCK, Server, Tool, cpu_ticks, setup, sys_ticks
from .run import supports_sessions
from .wrk import ROTATE, lua_env, parse, wrk

ROUTES = ("hello", "me", "me_cold", "debug_token", "code_exchange", "token_exchange", "consent", "consent_many")
SERVER_CPU, WRK_CPU, CONNECTIONS, WARM_SECONDS = 0, 1, 32, 4


def main(argv):
    setup()
    tool = Tool("profile")
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.rstrip())
        return 0
    if not argv or len(argv) > 2:
        print(f"usage: scripts/profile {'|'.join(ROUTES)} [seconds]", file=sys.stderr)
        return 2
    route, seconds = argv[0], argv[1] if len(argv) > 1 else "8"
    if route not in ROUTES:
        tool.fail("ROUTE is hello, me, me_cold, debug_token, code_exchange, token_exchange, consent or consent_many", 2)
    binary = os.environ.get("GATEHOUSE_BIN") or ".build-release/release/gatehouse"
    if not os.access(binary, os.X_OK):
        tool.fail(f"no release binary at {binary}")
    for needed in ("wrk", "taskset", "curl"):
        if not shutil.which(needed):
            tool.fail(f"needs {needed}")
    perf = not os.environ.get("PROFILE_NOPERF")
    if perf and not shutil.which("perf"):
        tool.fail("needs perf (Debian's linux-perf)")
    work = Path(tempfile.mkdtemp(prefix="gatehouse-profile.", dir="/tmp"))  # kept: perf.data and the report
    server, pg_dir = Server(tool, binary, work, SERVER_CPU, poll=0.05), None
    try:
        database = f"sqlite:{work}/data/gatehouse.sqlite"
        if os.environ.get("PROFILE_DATABASE") == "postgres":
            pg_dir = work / "pg"
            pg_dir.mkdir()
            os.chmod(work, 0o755)
            os.chmod(pg_dir, 0o755)
            database = tool.output([POSTGRES_CLUSTER, "create", pg_dir])
        seed = seed_data(tool, binary, work, route, database)
        server.start(work / "data", database, journal=os.environ.get("PROFILE_JOURNAL") or "false")
        profile(tool, server, work, route, seconds, seed, perf)
    finally:
        server.stop()
        if pg_dir:
            subprocess.run([POSTGRES_CLUSTER, "destroy", pg_dir])
    return 0


def seed_data(tool, binary, work, route, database):
    """1,000 people, 5,000 tokens, PROFILE_CODES codes and (where the binary can) a session each."""
    # me_cold presents never-seen tokens, each once: it seeds PROFILE_COLD_TOKENS more and lists them.
    cold = ["--tokens", os.environ.get("PROFILE_COLD_TOKENS") or "300000", "--tokens-file", work / "cold.txt"]
    options = (["--sessions", "1000"] if supports_sessions(binary) else []) + (cold if route == "me_cold" else [])
    tool.run([binary, "seed", "bench", "--users", "1000", "--tokens", "5000", "--sample-tokens", "5000", "--codes",
              os.environ.get("PROFILE_CODES") or "40000", *options, "--data-dir", work / "data", "--database",
              database], stdout=subprocess.DEVNULL)
    seed = Seed(work / "data")
    seed.write_list("sample_tokens", work / "tokens.txt")
    return seed


def requests(work, route, seed):
    """The Lua environment for ROUTE, but BENCH_START."""
    tokens = work / "tokens.txt"
    if route == "hello":
        return lua_env(tokens, "/bench/hello?t=ITEM")
    if route == "me":
        return lua_env(tokens, ME_PATH)
    if route == "me_cold":
        # Each token once, from the end of the list (the first 5,000 are the hot set): every request is a miss.
        cold = (work / "cold.txt").read_text().splitlines(keepends=True)
        (work / "cold-reversed.txt").write_text("".join(reversed(cold)))
        return lua_env(work / "cold-reversed.txt", ME_PATH)
    if route == "debug_token":
        return lua_env(tokens, debug_token_path(seed.app, seed.secret))
    if route == "code_exchange":
        # Each code once (the warm-up takes the second half): a replayed code would measure the refusal instead.
        return lua_env(seed.write_list("codes", work / "codes.txt"), code_exchange_path(seed))
    if route == "token_exchange":
        return lua_env(tokens, token_exchange_path(seed))
    if route == "consent":
        # The seeded session's person pressing Continue on the consent page, as in scripts/bench: a 303, a new code.
        cookie, body = consent(seed)
        return lua_env(tokens, CONSENT_PATH, "POST", body, cookie)
    # consent_many: the same over every seeded person, each with their own session (no grant row shared).
    cookie, body = consent(seed, many=True)
    return lua_env(seed.write_sessions(work / "sessions.txt"), CONSENT_PATH, "POST", body, cookie)


def profile(tool, server, work, route, seconds, seed, perf):
    env = requests(work, route, seed)
    # Warm-up: two passes over the tokens fill the caller cache. Codes are single-use, so the warm-up takes them
    # from the second half of the list and the measured run from the first.
    if route == "me_cold":
        # Warm the server on hello instead: a warm-up over the tokens would make them seen.
        wrk(f"{server.base}/bench/hello", WRK_CPU, CONNECTIONS, WARM_SECONDS)
    else:
        items = len(Path(env["BENCH_ITEMS"]).read_text().splitlines()) if route == "code_exchange" else 0
        wrk(server.base, WRK_CPU, CONNECTIONS, WARM_SECONDS, ROTATE, dict(env, BENCH_START=str(items // 2)))
    recorder = None
    if perf:
        recorder = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", str(server.pid),
                                     "-o", str(work / "perf.data"), "--", "sleep", seconds],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c0, s0 = cpu_ticks(server.pid), sys_ticks(server.pid)
    wrk(server.base, WRK_CPU, CONNECTIONS, seconds, ROTATE, env, latency=True, out=work / "wrk.txt")
    c1, s1 = cpu_ticks(server.pid), sys_ticks(server.pid)
    text = (work / "wrk.txt").read_text(errors="replace")
    for line in text.splitlines():
        if any(key in line for key in ("Requests/sec", "  50%", "  99%", "Non-2xx")):
            print(line)
    n = int(parse(text)[4]) or 1
    print(f"server CPU per request: {(c1 - c0) / CLK_TCK * 1e6 / n:.1f} us over {parse(text)[4]} requests "
          f"({(s1 - s0) / CLK_TCK * 1e6 / n:.1f} us of it in the kernel)", flush=True)
    if recorder:
        recorder.wait()
        report(work)
        print(f"profile: {work}/perf.data, hottest functions in {work}/report.txt "
              f"(perf report -i {work}/perf.data for the rest)")


def report(work):
    """The hottest functions, inclusive, demangled, without the kernel's: the first 60 lines of perf's report."""
    text = subprocess.run(["perf", "report", "-i", str(work / "perf.data"), "--children", "--sort", "sym", "--stdio",
                           "-g", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          errors="replace").stdout
    text = "".join(l for l in text.splitlines(keepends=True) if not l.startswith("#") and l != "\n")
    if shutil.which("swift"):
        text = subprocess.run(["swift", "demangle", "--simplified"], input=text, stdout=subprocess.PIPE,
                              text=True, errors="replace").stdout
    kept = [l for l in text.splitlines(keepends=True) if "[k]" not in l][:60]
    (work / "report.txt").write_text("".join(kept))
