"""The benchmark's tables, from the rows in WORK/results and the run's other facts; printed, and written to
BENCH_OUT when it is set. The rows, labels and targets here are the ones docs/BENCHMARKS.md shows."""
import json
import os

from .emulator import ROWS


def machine():
    """"2 cores, <model name>, 24 GiB, load average at the end 0.1 0.2 0.3", from /proc."""
    model = next((l.split(":", 1)[1] for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    cores = len(os.sched_getaffinity(0))
    return f"{cores} cores, {' '.join(model.split())}, {mem / 1048576:.0f} GiB, load average at the end {load}"


def write(work, facts, out=None):
    lines = []
    p = lambda text="": lines.append(text)  # noqa: E731
    names = ("rss_idle rss_max cold cold_big seed_s big_users big_tokens duration conns database build hot "
             "cold_available instr_n pipeline_n full_rss caller_capacity bcrypt_cost login_concurrency").split()
    (rss_idle, rss_max, cold, cold_big, seed_s, big_users, big_tokens, duration, conns, database, build, hot,
     cold_available, instr_n, pipeline_n, full_rss, caller_capacity, bcrypt_cost, login_concurrency) = (
        facts[name] for name in names)
    machine_text = machine()
    path, commits_path, instr_path = f"{work}/results", f"{work}/commits", f"{work}/instructions"
    pipeline_path, writes_path = f"{work}/pipeline.txt", f"{work}/writes.json"
    for name in (commits_path, instr_path):
        open(name, "a").close()
    rows = {}
    for line in open(path):
        name, rps, p50, p99, bad, requests, cpu = line.split()
        rows[name] = (float(rps), float(p50), float(p99), int(bad), int(requests), float(cpu))
    commits = dict((l.split()[0], float(l.split()[1])) for l in open(commits_path))
    instructions = dict((l.split()[0], (int(l.split()[1]), int(l.split()[2]))) for l in open(instr_path))
    base = rows["hello"]
    p(f"Database: {database}; {build} build.")
    p()
    big = f"{int(big_users):,} people / {int(big_tokens):,} tokens"
    labels = [
        ("reference", "bare Hummingbird reference (`gatehouse bench-reference`)", ""),
        ("hello", "GET /bench/hello (baseline)", "≥ 80% of the reference"),
        ("me", f"GET /me?fields=id,name,email, hot ({int(hot):,} tokens)", "≥ 75% of baseline; p99 ≤ 2× baseline"),
        ("me_journal", "GET /me, hot, request journal on (development mode's default)", ""),
        ("debug_token", "GET /debug_token", "≥ 70% of baseline"),
        ("code_exchange", "code exchange (GET /oauth/access_token)", "≥ 60% of the commit rate"),
        ("id_token_sign", "id_token issuance, RS256 sign only", "≥ 1,500/s per core"),
        ("code_exchange_id_token", "code exchange with id_token (openid)", ""),
        ("consent_post", "consent POST (303, new code), one person", "≥ 60% of the commit rate"),
        ("consent_post_many", "consent POST, 1,000 people (a session each)", ""),
        ("token_exchange", "token exchange (grant_type=fb_exchange_token)", "≥ 60% of the commit rate"),
        ("client_credentials", "app token (grant_type=client_credentials)", ""),
        ("me_cold", f"GET /me, cold (each token once; {big})", "≥ 30% of baseline"),
        ("me_1M", f"GET /me, 1,000 tokens of {big}", "within 90% of /me hot"),
        ("debug_token_cold", "GET /debug_token, cold (each input token once, large dataset)", ""),
    ]
    p("| route | req/s | ratio to baseline | server CPU µs/request | CPU ratio to baseline | p50 ms | p99 ms "
      "| non-2xx/3xx | target |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for key, label, target in labels:
        if key not in rows: continue
        rps, p50, p99, bad, _, cpu = rows[key]
        ratio = rps / base[0] if base[0] else 0
        # As a share of what the server could do if CPU were the only limit: baseline CPU per request over this route's.
        cpu_ratio = base[5] / cpu if cpu else 0
        p(f"| {label} | {rps:,.0f} | {ratio:.0%} | {cpu:,.1f} | {cpu_ratio:.0%} | {p50:.2f} | {p99:.2f} | {bad} | {target} |")
    p()
    if "reference" in rows:
        p(f"- /bench/hello / bare Hummingbird reference: {base[0] / rows['reference'][0]:.0%} by req/s, "
          f"{rows['reference'][5] / base[5]:.0%} by server CPU per request (target ≥ 80%)")
    if "me" in rows:
        p(f"- /me hot p99 / baseline p99: {rows['me'][2] / base[2]:.2f}× (target ≤ 2×)")
    if "me_cold" in rows:
        p(f"- /me cold: {rows['me_cold'][4]:,} requests over {int(cold_available):,} distinct tokens (each used at most once)")
    if "me" in rows and "me_1M" in rows:
        p(f"- /me over the large dataset vs hot: {rows['me_1M'][0] / rows['me'][0]:.0%}")
    if "probe" in commits:
        rate = commits["probe"]
        p(f"- disk commit rate ({database}, one-row commits with the server's settings): {rate:,.0f}/s")
        for key, label in [("code_exchange", "code exchange"), ("consent_post", "consent POST, one person"),
                           ("consent_post_many", "consent POST, 1,000 people"), ("token_exchange", "token exchange"),
                           ("client_credentials", "client_credentials")]:
            if key in rows:
                p(f"  - {label}: {rows[key][0] / rate:.0%} of the commit rate (target ≥ 60%)")
    if "valgrind_failed" in instructions:
        p("- instructions per request: not measured (this valgrind cannot run the binary)")
        instructions.pop("valgrind_failed")
    if instructions:
        p(f"- instructions per request (callgrind, {int(instr_n):,} requests on one keep-alive connection, whole server process):")
        for key, label in [("reference", "bare Hummingbird reference"), ("hello", "/bench/hello"), ("me", "/me hot"),
                           ("debug_token", "/debug_token")]:
            if key in instructions:
                n, bad = instructions[key]
                p(f"  - {label}: {n:,}" + (f" ({bad} non-200)" if bad else ""))
    p(f"- server RSS idle: {int(rss_idle) / 1024:.1f} MB; peak under load: {int(rss_max) / 1024:.1f} MB (target ≤ 150 MB)")
    if full_rss and "me_fill" in rows:
        filled = rows["me_cold"][4] + rows["me_fill"][4] if "me_cold" in rows else rows["me_fill"][4]
        state = "full" if filled >= int(caller_capacity) else "not full"
        p(f"- server RSS with the caller cache {state} ({filled:,} never-seen tokens for a cache of {int(caller_capacity):,}): "
          f"{int(full_rss) / 1024:.1f} MB (target ≤ 150 MB)")
    p(f"- cold start to first 200: {cold} ms (1k dataset)"
      + (f", {cold_big} ms ({int(big_users):,} dataset)" if cold_big else "") + " (target < 1 s)")
    if seed_s:
        p(f"- seeding {int(big_users):,} people + {int(big_tokens):,} tokens: {seed_s} s")
    pipeline = [l.rstrip("\n") for l in open(pipeline_path) if l.strip()]
    if pipeline:
        p(f"- request pipeline on /bench/hello, CPU ns per call in-process ({int(pipeline_n):,} calls each, "
          "`gatehouse bench pipeline`):")
        for line in pipeline:
            ns, name = line.split(" ns  ", 1)
            p(f"  - {name.strip()}: {ns.strip()} ns")
    p(f"- wrk: 1 thread, {conns} connections, {duration} s per route; server and wrk pinned to different cores")
    p(f"- machine: {machine_text}")
    p()
    # The sizing table, in Keycloak's form: the server is pinned to one core, so each rate is per core.
    p(f"Sizing ({database}, {build} build): per second per core. The server runs pinned to one core, so its rate is")
    p("the rate of one core; \"by CPU\" is one second over the server's CPU time per operation (what one core would do")
    p("were CPU the only limit; on a quiet machine the two meet).")
    p()
    p("| operation | per second per core | by CPU (1 s / CPU per op) | server CPU ms per op | p99 ms | failed |")
    p("|---|---:|---:|---:|---:|---:|")
    sizing = [
        ("login", "password login through the dialog, end to end (login form, password at bcrypt cost "
                  f"{bcrypt_cost}, consent, code exchange; {login_concurrency} in flight)"),
        ("code_exchange", "code exchange"),
        ("client_credentials", "`client_credentials` (app token)"),
        ("token_exchange", "token exchange (refresh: `fb_exchange_token`)"),
        ("debug_token", "`debug_token`, hot"),
        ("debug_token_cold", "`debug_token`, cold"),
        ("me", "`/me`, hot"),
        ("me_cold", "`/me`, cold"),
    ]
    for key, label in sizing:
        if key not in rows:
            p(f"| {label} | not run | | | | |")
            continue
        rps, p50, p99, bad, n, cpu = rows[key]
        by_cpu = 1e6 / cpu if cpu else 0
        rate = lambda v: f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"
        p(f"| {label} | {rate(rps)} | {rate(by_cpu)} | {cpu / 1000:,.3f} | {p99:,.2f} | {bad} |")
    p()
    p(f"- memory (server RSS): {int(rss_idle) / 1024:.1f} MB at rest; {int(rss_max) / 1024:.1f} MB at the peak under load"
      + (f"; {int(full_rss) / 1024:.1f} MB with the caller cache full" if full_rss else ""))
    if os.path.exists(writes_path) and os.path.getsize(writes_path):
        w = json.load(open(writes_path))
        detail = ", ".join(f"{t} {'/'.join(f'{x:g}' for x in v)}" for t, v in w["tables"].items())
        commits = (f"; {w['commits_per_unit']:g} transactions committed per login (xact_commit, reads included)"
                   if w.get("commits_per_unit") is not None else "")
        p(f"- database writes per login: {w['per_unit']:g} {w['what']} over {w['units']:,} logins"
          f" ({w['inserted']:g} inserted, {w['updated']:g} updated, {w['deleted']:g} deleted){commits}")
        p(f"  - by table (inserted/updated/deleted per login): {detail}")

    lines += emulator_table(work, build)
    _emit(lines, out)


def _emit(lines, out):
    output = "\n".join(lines) + "\n"
    print(output, end="", flush=True)
    if out:
        with open(out, "w") as file:
            file.write(output)


def emulator_table(work, build):
    """The emulator's table (emulator.py's rows): each operation's p50 and p95 in ms, in a process and in process."""
    def read(name):
        path = f"{work}/{name}"
        if not os.path.exists(path):
            return {}
        return {l.split()[0]: l.split()[1:] for l in open(path) if l.strip()}
    process, inprocess = read("emulator-process"), read("emulator-inprocess")
    if not process and not inprocess:
        return []
    lines = ["", f"Emulator ({build} build, development mode, SQLite): milliseconds per call, wall clock as a test sees "
             "it.", "",
             "| operation | process p50 | process p95 | in process p50 | in process p95 |", "|---|---:|---:|---:|---:|"]
    cell = lambda row, i: row[i] if row else "—"  # noqa: E731
    for key, label in ROWS:
        a, b = process.get(key), inprocess.get(key)
        if a or b:
            lines.append(f"| {label} | {cell(a, 0)} | {cell(a, 1)} | {cell(b, 0)} | {cell(b, 1)} |")
    n = next((row[2] for row in list(process.values())[1:2] + list(inprocess.values())[1:2]), "?")
    starts = (process.get("start") or inprocess.get("start") or ["", "", "?"])[2]
    lines.append("")
    lines.append(f"- {starts} starts and {n} calls of each operation per side; the process side over one keep-alive "
                 "connection to `gatehouse serve --mode development`, the in-process side `gatehouse bench emulator`")
    lines.append(f"- machine: {machine()}")
    return lines


def write_emulator(work, build, out=None):
    """`scripts/bench --emulator`: the emulator's table alone."""
    _emit(emulator_table(work, build), out)
