"""Gatehouse benchmark: release build, seeded server pinned to one core, wrk pinned to the other.

Prints one table: requests/s, p50, p99 and ratios for a bare Hummingbird app (`gatehouse bench-reference`, the
reference), the hello-world route of the server itself (`/bench/hello`, the baseline), GET /me hot (a working
set of tokens) and cold (each token once, from the large dataset), GET /debug_token, the code exchange,
id_token issuance (sign only, and inside the code exchange), the consent POST, the token exchange and
client_credentials; /debug_token cold (each input token once, from the large dataset); a whole password login
through the dialog (scripts/bench-login: login form, password at the production bcrypt cost, consent, code
exchange) with the database's writes per login (scripts/bench-db-writes); the disk's commit rate with the
server's own database settings and the write routes as a ratio of it; server RSS idle and under load; cold
start to first 200. Then the sizing table: each of those per second per core (the server is pinned to one
core, so its req/s is per core), beside the rate one core would reach from the CPU per request alone.

  scripts/bench                 the table (SQLite; BENCH_DATABASE=postgres for a throwaway PostgreSQL cluster)
  scripts/bench --instructions  also instructions per request (valgrind's callgrind) for the reference,
                                /bench/hello, /me hot and /debug_token
  scripts/bench --compare BASE  the same rows for BASE and the working tree, alternating (scripts/lib/bench/compare.py)
  scripts/bench --emulator      only the emulator's table (scripts/lib/bench/emulator.py): start, resets, creating
                                an app, a person and a test user, minting a token, a headless login; p50 and p95 ms

Not part of scripts/test. Environment knobs:
  BENCH_DATABASE=sqlite    sqlite, or postgres (a throwaway cluster made by scripts/postgres-cluster)
  BENCH_DURATION=10        seconds per wrk run (and for the commit-rate probe)
  BENCH_CONNECTIONS=32     wrk connections
  BENCH_HOT_TOKENS=5000    the hot /me working set (tokens in the small dataset, rotated by lua/rotate.lua)
  BENCH_BIG_USERS=1000000  people in the large dataset (0 skips the large dataset and the cold /me run)
  BENCH_BIG_TOKENS=5000000 tokens in the large dataset
  BENCH_SKIP_BIG=1         skip the large dataset (same as BENCH_BIG_USERS=0)
  BENCH_DEBUG=1            use the debug build (smoke runs only: the numbers mean nothing); with BENCH_BIN, say so
  BENCH_CODES=60000        unused codes per kind (plain, openid) in the small dataset
  BENCH_LOGIN_PEOPLE=300   people made for the login row (each logs in once; the row ends early if they run out)
  BENCH_LOGIN_CONCURRENCY=$(nproc)  logins in flight at once (scripts/bench-login's workers)
  BENCH_INSTR_REQUESTS=2000 requests per route counted under callgrind (--instructions)
  BENCH_PIPELINE_ITERATIONS=200000  calls per piece of `gatehouse bench pipeline`
  BENCH_SERVER_CPU=0 BENCH_WRK_CPU=1   cores to pin to
  BENCH_KEEP=1             keep the temporary data directories
  BENCH_OUT=path           also write the table (markdown) there
  BENCH_RESULTS=path       also write the raw rows (name req/s p50 p99 non2xx requests cpu-µs) there
  BENCH_BIN=path           run this gatehouse binary instead of building one
  BENCH_CHART=path.svg     also draw the CPU-per-request chart (scripts/bench-chart, matplotlib from PyPI)
  SERVER_JOURNAL=false     the server's --journal (me_journal turns it on); the server inherits the environment
  BENCH_COMPARE_ROUNDS=3   rounds per side of --compare
  BENCH_EMULATOR_ITERATIONS=50  calls of each emulator operation; BENCH_EMULATOR_STARTS=10 starts of each side
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import compare, emulator, instructions, report
from .data import (CONSENT_PATH, DB_WRITES, ME_PATH, Databases, Seed, client_credentials_path, code_exchange_path,
                   consent, debug_token_path, token_exchange_path)
from .proc import Server, Tool, cpu_count, rss_kb, setup
from .wrk import ONCE, ROTATE, Rows, lua_env, wrk

CALLER_CAPACITY = 40000  # the caller cache's capacity (`CallerFacts.nodeCacheCapacity`): the full-cache RSS row fills it
LOGIN_PASSWORD = "bench-login-password"
PRODUCTION_PASSWORD_COST = "11"  # `PasswordCost.production`: the login row measures a production login


class Options:
    """The BENCH_* knobs (the module's docstring lists them), each empty or unset for its default."""

    def __init__(self, instructions):
        env = lambda name, default="": os.environ.get(name) or default  # noqa: E731
        self.instructions = instructions
        self.database, self.duration = env("BENCH_DATABASE", "sqlite"), env("BENCH_DURATION", "10")
        self.connections, self.hot = int(env("BENCH_CONNECTIONS", "32")), int(env("BENCH_HOT_TOKENS", "5000"))
        self.big_users, self.big_tokens = int(env("BENCH_BIG_USERS", "1000000")), int(env("BENCH_BIG_TOKENS", "5000000"))
        if env("BENCH_SKIP_BIG"):
            self.big_users = 0
        self.server_cpu, self.wrk_cpu = env("BENCH_SERVER_CPU", "0"), env("BENCH_WRK_CPU", "1")
        self.codes, self.instr_requests = int(env("BENCH_CODES", "60000")), int(env("BENCH_INSTR_REQUESTS", "2000"))
        self.login_people = int(env("BENCH_LOGIN_PEOPLE", "300"))
        self.login_concurrency = int(env("BENCH_LOGIN_CONCURRENCY", str(cpu_count())))
        self.pipeline_iterations = env("BENCH_PIPELINE_ITERATIONS", "200000")
        self.keep, self.out, self.results = env("BENCH_KEEP"), env("BENCH_OUT"), env("BENCH_RESULTS")
        self.chart, self.bin, self.debug = env("BENCH_CHART"), env("BENCH_BIN"), env("BENCH_DEBUG")
        self.emulator_iterations = int(env("BENCH_EMULATOR_ITERATIONS", "50"))
        self.emulator_starts = int(env("BENCH_EMULATOR_STARTS", "10"))


def main(argv):
    setup()
    if argv[:1] == ["--compare"]:
        if len(argv) < 2 or not argv[1]:
            print("usage: scripts/bench --compare BASE (a commit, branch or tag)", file=sys.stderr)
            return 2
        return compare.main(argv[1])
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.rstrip())
        return 0
    for arg in argv:
        if arg not in ("--instructions", "--emulator"):
            print("usage: scripts/bench [--instructions] | --emulator | --compare BASE | --help", file=sys.stderr)
            return 2
    options = Options("--instructions" in argv)
    if "--emulator" in argv:
        return emulator_only(options)
    tool = Tool("bench")
    if options.database not in ("sqlite", "postgres"):
        tool.fail("BENCH_DATABASE is sqlite or postgres", 2)
    if not all(shutil.which(t) for t in ("wrk", "taskset", "curl")):
        tool.say("installing wrk, util-linux, curl (Debian packages)")
        subprocess.run("apt-get install -y wrk util-linux curl >/dev/null 2>&1 || { apt-get update >/dev/null && "
                       "apt-get install -y wrk util-linux curl >/dev/null; }", shell=True, check=True)
    if options.instructions and not shutil.which("valgrind"):
        tool.fail("--instructions needs valgrind (apt-get install valgrind)")
    binary, build = build_binary(tool, options)
    work = Path(tempfile.mkdtemp(prefix="gatehouse-bench.", dir="/tmp"))
    server = Server(tool, binary, work, options.server_cpu)
    databases = None
    try:
        databases = Databases(tool, options.database)
        Bench(tool, options, binary, build, work, server, databases).run()
    finally:
        server.stop()
        if databases:
            databases.destroy()
        if options.keep:
            tool.say(f"data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def emulator_only(options):
    """`scripts/bench --emulator`: the emulator's table alone (a minute, not the whole run's half hour)."""
    tool = Tool("bench")
    binary, build = build_binary(tool, options)
    work = Path(tempfile.mkdtemp(prefix="gatehouse-bench.", dir="/tmp"))
    try:
        emulator.measure(tool, binary, work, options.server_cpu, options.emulator_starts, options.emulator_iterations)
        report.write_emulator(work, build, options.out)
    finally:
        if options.keep:
            tool.say(f"data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def build_binary(tool, options):
    """The binary to measure and what build it is: BENCH_BIN (`--compare` builds both sides once, then runs this
    for each), the debug build (BENCH_DEBUG), or the release build in .build-release."""
    if options.bin:
        return options.bin, "debug" if options.debug else "release"
    if options.debug:
        tool.say("BENCH_DEBUG=1: debug build, for smoke runs only")
        tool.run(["swift", "build", "--product", "gatehouse"], stdout=sys.stderr)
        return tool.output(["swift", "build", "--show-bin-path"]) + "/gatehouse", "debug"
    tool.say("building release binary (swift build -c release)…")
    release = ["swift", "build", "-c", "release", "--scratch-path", ".build-release"]
    tool.run(release + ["--product", "gatehouse"], stdout=sys.stderr)
    return tool.output(release + ["--show-bin-path"]) + "/gatehouse", "release"


def lines(path):
    return Path(path).read_text().splitlines(keepends=True)


class Bench:
    def __init__(self, tool, options, binary, build, work, server, databases):
        self.tool, self.o, self.binary, self.build, self.work = tool, options, binary, build, work
        self.server, self.db = server, databases
        self.rows = Rows(tool, server, work, options.wrk_cpu, options.connections, options.duration)
        self.facts = {"database": options.database, "build": build, "hot": options.hot, "big_users": options.big_users,
                      "big_tokens": options.big_tokens, "duration": options.duration, "conns": options.connections,
                      "instr_n": options.instr_requests, "pipeline_n": options.pipeline_iterations,
                      "caller_capacity": CALLER_CAPACITY, "login_concurrency": options.login_concurrency,
                      "bcrypt_cost": "?", "cold_big": "", "seed_s": "", "cold_available": 0, "full_rss": ""}

    def warm(self, url="/bench/hello", seconds=2, script=None, env=None):
        wrk(self.server.base + url, self.o.wrk_cpu, self.o.connections, seconds, script, env)

    def run(self):
        w, o, rows = self.work, self.o, self.rows
        # ---- the bare Hummingbird reference ----
        self.server.start_reference()
        self.warm()
        rows.run("reference", f"{self.server.base}/bench/hello")
        self.server.stop()
        # ---- the disk's commit rate, with the server's database settings ----
        if o.database == "postgres":
            self.commit_rate("probe", self.db.for_dataset("commit_probe", ""))
        else:
            (w / "probe").mkdir()
            self.commit_rate("probe", f"{w}/probe/probe.sqlite")
        seed, small_db = self.small_dataset()
        self.small_rows(seed, small_db)
        # ---- /me hot with the request journal on (development mode's default) ----
        self.server.start(w / "small", small_db, journal="true")
        tokens = w / "tokens.txt"
        self.warm(url="", seconds=o.duration, script=ONCE, env=lua_env(tokens, ME_PATH, connections=o.connections))
        rows.run("me_journal", self.server.base, ROTATE, lua_env(tokens, ME_PATH))
        self.server.stop()
        # ---- instructions per request (callgrind) ----
        if o.instructions:
            instructions.measure(self.tool, self.server, self.binary, w, seed, small_db, o.instr_requests)
        # ---- the request pipeline, piece by piece (in-process CPU time, no sockets) ----
        with open(w / "pipeline.txt", "w") as f:
            self.tool.run(["taskset", "-c", o.server_cpu, self.binary, "bench", "pipeline", "--iterations",
                           o.pipeline_iterations, "--data-dir", w / "pipeline"], stdout=f)
        self.tool.say("pipeline:")
        sys.stderr.write((w / "pipeline.txt").read_text())
        # ---- the emulator: start, resets and each admin call a test suite makes, in a process and in process ----
        emulator.measure(self.tool, self.binary, w, o.server_cpu, o.emulator_starts, o.emulator_iterations)
        if o.big_users > 0:
            self.large_dataset()
        # ---- the table ----
        if o.results:
            shutil.copy(w / "results", o.results)
        if o.chart:
            if subprocess.run([sys.executable, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode:
                subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                "matplotlib"], stdout=sys.stderr, check=True)
            self.tool.run(["scripts/bench-chart", o.chart, f"{o.database}={w}/results"], stdout=sys.stderr)
        self.facts["rss_max"] = rows.max_rss
        report.write(w, self.facts, o.out)

    def commit_rate(self, name, database):
        """`gatehouse bench commit-rate`: appends "name commits_per_second" to WORK/commits."""
        out = self.tool.output(["taskset", "-c", self.o.server_cpu, self.binary, "bench", "commit-rate",
                                "--database", database, "--seconds", self.o.duration, "--json"])
        with open(self.work / "commits", "a") as f:
            f.write(f"{name} {round(json.loads(out)['commitsPerSecond'])}\n")
        self.tool.say(f"commit rate ({name}): {out}")

    def small_dataset(self):
        w, o = self.work, self.o
        self.tool.say(f"seeding 1,000 people, {o.hot} tokens, {o.codes * 2} codes…")
        # A session for each person, for the consent row over many people (binaries before it cannot: --compare).
        sessions = ["--sessions", "1000"] if supports_sessions(self.binary) else []
        small_db = self.db.for_dataset("bench_small", w / "small")
        self.tool.run([self.binary, "seed", "bench", "--users", "1000", "--tokens", o.hot, "--sample-tokens", o.hot,
                       "--codes", o.codes, *sessions, "--data-dir", w / "small", "--database", small_db], stdout=sys.stderr)
        seed = Seed(w / "small")
        seed.write_list("sample_tokens", w / "tokens.txt")
        seed.write_list("codes", w / "codes.txt")
        seed.write_list("openid_codes", w / "openid-codes.txt")
        seed.write_sessions(w / "sessions.txt")
        # The login row's people: one made by `gatehouse users create`, whose password the server hashes at
        # production's cost (development mode's own is bcrypt's minimum, so GATEHOUSE_PASSWORD_COST asks for
        # production's; binaries from before the setting ignore it and hash at production's anyway), then
        # BENCH_LOGIN_PEOPLE more sharing that hash and with no grant yet, so each login is a first login (the consent
        # page, a new grant and app-scoped id).
        self.tool.run([self.binary, "users", "create", "--email", "login-probe@bench.example", "--password",
                       LOGIN_PASSWORD, "--first-name", "Login", "--last-name", "Probe", "--data-dir", w / "small",
                       "--database", small_db], stdout=sys.stderr,
                      env=dict(os.environ, GATEHOUSE_PASSWORD_COST=PRODUCTION_PASSWORD_COST))
        sqlite_path = w / "small" / "gatehouse.sqlite"
        login_hash = self.db.query(small_db, sqlite_path,
                                   "SELECT password_hash FROM users WHERE email = 'login-probe@bench.example'")
        parts = login_hash.split("$")  # `cut -d$ -f3`: "$2b$12$…" → 12
        self.facts["bcrypt_cost"] = login_hash if len(parts) == 1 else (parts[2] if len(parts) > 2 else "")
        t, q = int(time.time()), lambda v: "'" + v + "'"
        values = ", ".join("(%s, %s, %s, %s, %s, %s, %d)" % (
            q(str(300000000000000 + i)), q("login%d@bench.example" % i), q("login%d@bench.example" % i),
            q(login_hash), q("Login"), q("Person%d" % i), t) for i in range(o.login_people))
        self.db.query(small_db, sqlite_path, "INSERT INTO users (id, email, email_key, password_hash, first_name, "
                      "last_name, created_at) VALUES " + values)
        (w / "login-people.txt").write_text("".join(f"login{i}@bench.example\n" for i in range(o.login_people)))
        self.tool.say(f"{o.login_people} people for the login row, bcrypt cost {self.facts['bcrypt_cost']} "
                      f"({login_hash[:7]}…)")
        return seed, small_db

    def small_rows(self, seed, small_db):
        w, o, rows, server = self.work, self.o, self.rows, self.server
        self.facts["cold"] = server.start(w / "small", small_db)
        base = server.base
        # Warm up (caches, connections, the signing key) and let RSS settle.
        subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/bench/id_token"])
        self.warm()
        time.sleep(1)
        self.facts["rss_idle"] = rss_kb(server.pid)
        tokens = w / "tokens.txt"
        rows.run("hello", f"{base}/bench/hello")
        # The first pass over the working set fills the caller cache; the measured run then rotates through it.
        self.warm(url="", seconds=o.duration, script=ONCE, env=lua_env(tokens, ME_PATH, connections=o.connections))
        rows.run("me", base, ROTATE, lua_env(tokens, ME_PATH))
        rows.run("debug_token", base, ROTATE, lua_env(tokens, debug_token_path(seed.app, seed.secret)))
        rows.run("code_exchange", base, ROTATE, lua_env(w / "codes.txt", code_exchange_path(seed)))
        rows.run("id_token_sign", f"{base}/bench/id_token")
        rows.run("code_exchange_id_token", base, ROTATE, lua_env(w / "openid-codes.txt", code_exchange_path(seed)))
        (w / "one.txt").write_text("x\n")
        cookie, body = consent(seed)
        rows.run("consent_post", base, ROTATE, lua_env(w / "one.txt", CONSENT_PATH, "POST", body, cookie))
        # The same over 1,000 people, each with their own session: no grant row is shared by concurrent consents.
        if (w / "sessions.txt").stat().st_size:
            cookie, body = consent(seed, many=True)
            rows.run("consent_post_many", base, ROTATE, lua_env(w / "sessions.txt", CONSENT_PATH, "POST", body, cookie))
        rows.run("token_exchange", base, ROTATE, lua_env(tokens, token_exchange_path(seed)))
        rows.run("client_credentials", base + client_credentials_path(seed))
        # Whole password logins: two to warm up (the dummy hash, the pages), then the measured run over the rest,
        # with the database's writes counted around it.
        people = lines(w / "login-people.txt")
        (w / "login-warm.txt").write_text("".join(people[:2]))
        (w / "login-measured.txt").write_text("".join(people[2:]))
        self.tool.run(rows.login_argv(seed, w / "login-warm.txt", LOGIN_PASSWORD, 60, 1), stdout=subprocess.DEVNULL)
        sqlite_path = w / "small" / "gatehouse.sqlite"
        self.db.snapshot(small_db, sqlite_path, w / "writes-before.json")
        rows.run_logins("login", seed, w / "login-measured.txt", LOGIN_PASSWORD, o.login_concurrency)
        self.db.snapshot(small_db, sqlite_path, w / "writes-after.json")
        with open(w / "writes.json", "w") as f:
            self.tool.run([DB_WRITES, "diff", w / "writes-before.json", w / "writes-after.json",
                           rows.rows["login"][4]], stdout=f)
        self.tool.say(f"database writes per login: {(w / 'writes.json').read_text().rstrip()}")
        server.stop()

    def large_dataset(self):
        """/me cold (every token once), the caller cache filled, /me over the first tokens, /debug_token cold."""
        w, o, rows, server = self.work, self.o, self.rows, self.server
        self.tool.say(f"seeding {o.big_users} people and {o.big_tokens} tokens…")
        big_db = self.db.for_dataset("bench_big", w / "big")
        t0 = time.time_ns()
        self.tool.run([self.binary, "seed", "bench", "--users", o.big_users, "--tokens", o.big_tokens, "--sample-tokens",
                       "1000", "--tokens-file", w / "big-all-tokens.txt", "--data-dir", w / "big", "--database", big_db],
                      stdout=sys.stderr)
        self.facts["seed_s"] = str((time.time_ns() - t0) // 1_000_000_000)
        seed = Seed(w / "big")
        seed.write_list("sample_tokens", w / "big-tokens.txt")
        # The cold list leaves out the sample the hot run uses, so none of its tokens was ever asked for.
        cold = lines(w / "big-all-tokens.txt")[1000:]
        (w / "big-cold-tokens.txt").write_text("".join(cold))
        self.facts["cold_available"] = len(cold)
        self.facts["cold_big"] = str(server.start(w / "big", big_db))
        base = server.base
        self.warm()
        once = lambda items, path: lua_env(items, path, connections=o.connections)  # noqa: E731
        rows.run("me_cold", base, ONCE, once(w / "big-cold-tokens.txt", ME_PATH))
        # RSS with the caller cache full: on the same server, never-seen tokens past the cold row's until the cache
        # has filled and evicted (a quarter more than it holds), for as long as that takes at the cold row's rate.
        used, rate = int(rows.rows["me_cold"][4]), float(rows.rows["me_cold"][0])
        start, end = used + o.connections, used + o.connections + CALLER_CAPACITY * 5 // 4
        fill = cold[start:end]
        (w / "fill-tokens.txt").write_text("".join(fill))
        seconds = min(90, math.ceil(len(fill) / max(1.0, rate)) + 2)
        rows.run("me_fill", base, ONCE, once(w / "fill-tokens.txt", ME_PATH), duration=seconds)
        peak = rows.peaks.get("me_fill")
        self.facts["full_rss"] = "" if peak is None else str(peak)
        rows.run("me_1M", base, ROTATE, lua_env(w / "big-tokens.txt", ME_PATH))
        # /debug_token cold: input tokens past every one sent so far, each once (as /me cold).
        debug_cold = cold[end:]
        (w / "debug-cold-tokens.txt").write_text("".join(debug_cold))
        if len(debug_cold) > o.connections * 4:
            # The large dataset's own app: its app token is the caller.
            rows.run("debug_token_cold", base, ONCE,
                     once(w / "debug-cold-tokens.txt", debug_token_path(seed.app, seed.secret)))
        else:
            self.tool.say("too few never-sent tokens left for /debug_token cold (BENCH_BIG_TOKENS); row skipped")
        server.stop()


def supports_sessions(binary):
    """Whether `gatehouse seed bench` takes --sessions (binaries from before it do not: --compare, profile)."""
    help_text = subprocess.run([str(binary), "seed", "bench", "--help"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True).stdout
    return "--sessions" in help_text
