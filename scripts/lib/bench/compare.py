"""scripts/bench --compare BASE: the benchmark's rows for two commits, run alternately on this machine, with the
ratio of server CPU per request for each row. This is how a regression shows on a noisy machine: both sides see
the same load, and CPU per request barely moves when other work shares the machine (req/s does).

  scripts/bench --compare BASE    BASE: a commit, branch or tag; the other side is the working tree
                                  (scripts/bench-compare BASE is the same)
  BENCH_NEW_BIN=PATH              the new side is that release binary instead of a build of the working tree

Builds each side once (release; BASE in a git worktree under /tmp with its own build folder, kept for the next
run), then runs `scripts/bench` BENCH_COMPARE_ROUNDS times per side (default 3), alternating which goes first,
and prints one table: per row the median CPU µs per request of each side, new / base, and each side's CPU
ratio to its own /bench/hello. The large dataset is skipped unless BENCH_SKIP_BIG is set to empty; every
other BENCH_* knob of scripts/bench applies to both sides. Rows the base binary cannot run are left out.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .proc import ROOT, Tool, setup


def release_binary(tool, tree):
    """Build TREE's gatehouse (release, in TREE/.build-release); returns the binary's path."""
    release = ["swift", "build", "-c", "release", "--scratch-path", f"{tree}/.build-release"]
    tool.run(release + ["--product", "gatehouse"], stdout=sys.stderr, cwd=tree)
    return tool.output(release + ["--show-bin-path"], cwd=tree) + "/gatehouse"


def main(base_ref):
    setup()
    tool = Tool("bench-compare")
    rounds = int(os.environ.get("BENCH_COMPARE_ROUNDS") or "3")
    os.environ.setdefault("BENCH_SKIP_BIG", "1")
    base_sha = tool.output(["git", "rev-parse", "--verify", f"{base_ref}^{{commit}}"])
    changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "Sources", "Package.swift"]).returncode != 0
    new_desc = f"working tree at {tool.output(['git', 'rev-parse', '--short', 'HEAD'])}" + (" + changes" if changed else "")
    out = Path(tempfile.mkdtemp(prefix="gatehouse-compare.", dir="/tmp"))

    prebuilt = os.environ.get("BENCH_NEW_BIN")
    if prebuilt:
        # A release binary built elsewhere (another worktree's warm build folder) stands for the working tree.
        new_desc = f"{prebuilt} (BENCH_NEW_BIN)"
        shutil.copy(prebuilt, out / "gatehouse-new")
    else:
        tool.say("building the working tree (release)…")
        shutil.copy(release_binary(tool, "."), out / "gatehouse-new")
    tree = f"/tmp/gatehouse-compare-{base_sha[:12]}"
    if not os.path.isdir(tree):
        tool.run(["git", "worktree", "add", "--detach", tree, base_sha], stdout=sys.stderr)
    tool.say(f"building {base_ref} ({base_sha[:12]}) in {tree} (release)…")
    shutil.copy(release_binary(tool, tree), out / "gatehouse-base")

    for round_ in range(1, rounds + 1):
        for side in ("base", "new") if round_ % 2 else ("new", "base"):
            tool.say(f"round {round_}/{rounds}, {side}")
            env = dict(os.environ, BENCH_BIN=str(out / f"gatehouse-{side}"), BENCH_RESULTS=str(out / f"{side}.{round_}"))
            with open(out / f"{side}.{round_}.table", "w") as table, open(out / f"{side}.{round_}.log", "w") as log:
                status = subprocess.run([str(ROOT / "scripts" / "bench")], stdout=table, stderr=log, env=env).returncode
            if status:
                tool.fail(f"the {side} run failed; its log: {out}/{side}.{round_}.log")
    summary(out, rounds, f"{base_ref} ({base_sha[:12]})", new_desc)
    return 0


def summary(out, rounds, base_name, new_name):
    def load(side):
        rows = {}
        for r in range(1, rounds + 1):
            for line in open(f"{out}/{side}.{r}"):
                name, rps, p50, p99, bad, requests, cpu = line.split()
                rows.setdefault(name, []).append((float(cpu), float(rps)))
        return {k: (statistics.median(c for c, _ in v), statistics.median(r for _, r in v)) for k, v in rows.items()}
    base, new = load("base"), load("new")
    print(f"base: {base_name}; new: {new_name}; {rounds} alternating rounds per side, medians")
    print()
    print("| row | base CPU µs/req | new CPU µs/req | new / base | base: hello's CPU / row's | new: hello's CPU / row's "
          "| base req/s | new req/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    share = lambda side, row: f"{side['hello'][0] / row[0]:.0%}" if "hello" in side and row[0] else ""  # noqa: E731
    for name in [n for n in new if n in base]:
        b, n = base[name], new[name]
        print(f"| {name} | {b[0]:,.1f} | {n[0]:,.1f} | {n[0] / b[0]:.2f} | {share(base, b)} | {share(new, n)} "
              f"| {b[1]:,.0f} | {n[1]:,.0f} |")
    print()
    print("new / base below 1.00 is cheaper. Differences within the spread of one side's rounds are noise: see the")
    print(f"per-round rows in {out}/{{base,new}}.N")

