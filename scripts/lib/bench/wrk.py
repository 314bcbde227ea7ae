"""wrk runs and the benchmark's rows: the shared Lua request scripts, wrk's output read, and each row's line.

A row is one line of the results file (BENCH_RESULTS): name req/s p50-ms p99-ms non-2xx/3xx requests cpu-µs.
"""
import json
import os
import re
import subprocess
from pathlib import Path

from .proc import CLK_TCK, ROOT, Sampler, cpu_ticks

LUA = Path(__file__).resolve().parent / "lua"
ROTATE = LUA / "rotate.lua"  # rotate through a file's lines, one per request, in a request template
ONCE = LUA / "once.lua"  # every line once, then stop (the cold rows)
_LUA_VARIABLES = ("BENCH_ITEMS", "BENCH_PATH", "BENCH_METHOD", "BENCH_BODY", "BENCH_COOKIE", "BENCH_START")


def lua_env(items, path, method=None, body=None, cookie=None, connections=None, start=None):
    """The environment the Lua scripts read (lua/rotate.lua and lua/once.lua say what each variable is)."""
    env = {k: v for k, v in os.environ.items() if k not in _LUA_VARIABLES}
    given = {"BENCH_ITEMS": items, "BENCH_PATH": path, "BENCH_METHOD": method, "BENCH_BODY": body,
             "BENCH_COOKIE": cookie, "BENCH_CONNECTIONS": connections, "BENCH_START": start}
    env.update({k: str(v) for k, v in given.items() if v is not None})
    return env


def wrk(url, cpu, connections, seconds, script=None, env=None, latency=False, out=None):
    """`taskset -c CPU wrk -t1 -cN -dSs [--latency] [-s SCRIPT] URL`; a failing wrk is not an error (its row shows it)."""
    argv = ["taskset", "-c", str(cpu), "wrk", "-t1", f"-c{connections}", f"-d{seconds}s"]
    argv += ["--latency"] if latency else []
    argv += ["-s", str(script)] if script else []
    target = open(out, "w") if out else subprocess.DEVNULL
    try:
        subprocess.run(argv + [url], stdout=target, stderr=subprocess.STDOUT, env=env)
    finally:
        if out:
            target.close()


def to_ms(value):
    """wrk's "1.23ms", "456.00us", "1.02s" or "2.00m" in milliseconds, three decimals ("0.000" when missing)."""
    match = re.match(r"[0-9.]*", value)
    try:
        number = float(match.group())
    except ValueError:
        number = 0.0
    unit = value[match.end():]
    number = {"us": number / 1000, "s": number * 1000, "m": number * 60000}.get(unit, number)
    return f"{number:.3f}"


def parse(text):
    """req/s (rounded), p50 and p99 in ms, non-2xx/3xx responses and requests, from `wrk --latency`'s report."""
    rps, p50, p99, bad, requests = "0", "", "", "0", "0"
    for line in text.splitlines():
        fields = line.split()
        if "Requests/sec" in line and len(fields) > 1:
            rps = f"{float(fields[1]):.0f}"
        elif fields[:1] == ["50%"] and len(fields) > 1:
            p50 = fields[1]
        elif fields[:1] == ["99%"] and len(fields) > 1:
            p99 = fields[1]
        elif "Non-2xx or 3xx" in line and len(fields) > 4:
            bad = fields[4]
        elif "requests in" in line:
            requests = fields[0]
    return rps, to_ms(p50), to_ms(p99), bad, requests


class Rows:
    """Measures rows against the running server and appends them to WORK/results; keeps the peak RSS seen."""

    def __init__(self, tool, server, work, cpu, connections, duration):
        self.tool, self.server, self.work = tool, server, Path(work)
        self.cpu, self.connections, self.duration = cpu, connections, duration
        self.results = self.work / "results"
        self.results.touch()
        self.max_rss, self.peaks, self.rows = 0, {}, {}

    def _measure(self, name, drive):
        """Drive load with DRIVE() while sampling the server; returns the server's CPU ticks over it."""
        sampler = Sampler(self.server.pid)
        cpu0 = cpu_ticks(self.server.pid)
        drive()
        cpu1 = cpu_ticks(self.server.pid)
        peak = sampler.stop()
        self.peaks[name] = peak if sampler.samples else None  # None: no sample (FULL_RSS stays empty)
        self.max_rss = max(self.max_rss, peak)
        return cpu1 - cpu0

    def _append(self, name, fields):
        with open(self.results, "a") as f:
            f.write(f"{name} {' '.join(fields)}\n")
        self.rows[name] = fields

    def run(self, name, url, script=None, env=None, duration=None):
        """One wrk row: URL (with SCRIPT and the Lua environment ENV) for DURATION s (BENCH_DURATION)."""
        out = self.work / f"wrk.{name}"
        ticks = self._measure(name, lambda: wrk(url, self.cpu, self.connections, duration or self.duration,
                                                script, env, latency=True, out=out))
        rps, p50, p99, bad, requests = parse(out.read_text(errors="replace"))
        # The server's own CPU time per request: unlike req/s it barely moves when other work shares the machine.
        n = int(requests)
        cpu_us = f"{(ticks / CLK_TCK * 1e6 / n if n > 0 else 0):.1f}"
        self._append(name, [rps, p50, p99, bad, requests, cpu_us])
        self.tool.say(f"{name} {rps} req/s p50 {p50}ms p99 {p99}ms non-2xx/3xx {bad} "
                      f"({requests} requests, {cpu_us} µs server CPU each)")

    def login_argv(self, seed, people, password, seconds, concurrency):
        """scripts/bench-login, pinned to wrk's core, against the running server."""
        return ["taskset", "-c", str(self.cpu), str(ROOT / "scripts" / "bench-login"), "--port", str(self.server.port),
                "--app", seed.app, "--secret", seed.secret, "--redirect", seed.redirect, "--people", str(people),
                "--password", password, "--seconds", str(seconds), "--concurrency", str(concurrency)]

    def run_logins(self, name, seed, people, password, concurrency):
        """Whole password logins (scripts/bench-login) as a row: logins/s, p50 and p99 of a whole login (five
        requests), failures, logins, and the server's CPU per login."""
        out = self.work / f"login.{name}.json"
        argv = self.login_argv(seed, people, password, self.duration, concurrency)
        with open(out, "w") as f:
            ticks = self._measure(name, lambda: self.tool.run(argv, stdout=f))
        d = json.loads(out.read_text())
        rate = d["logins"] / d["seconds"] if d["seconds"] else 0
        cpu = ticks / CLK_TCK * 1e6 / d["logins"] if d["logins"] else 0
        fields = ("%.1f %.3f %.3f %d %d %.1f" % (rate, d["p50_ms"], d["p99_ms"], d["failures"], d["logins"], cpu)).split()
        self._append(name, fields)
        self.tool.say(f"{name} {' '.join(fields)} ({out.read_text().rstrip()})")
