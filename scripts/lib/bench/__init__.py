"""Gatehouse's benchmark, one program: scripts/bench (run.py: the table; compare.py: --compare BASE) and
scripts/profile (profile.py: one route under perf) share its parts:

  proc.py          commands, the server under test pinned to a core, its CPU time and RSS from /proc
  wrk.py           wrk runs and their reports read; a row of the results file
  data.py          databases (SQLite or a throwaway PostgreSQL cluster), the seed, the request templates
  lua/rotate.lua   wrk's request script: rotate through a file's lines in a request template
  lua/once.lua     wrk's request script: every line once, then stop (the cold rows)
  instructions.py  --instructions: callgrind's instructions per request
  emulator.py      the emulator's rows (--emulator alone): start, resets, admin calls, a headless login
  report.py        the tables printed at the end

scripts/bench-login (whole logins through the dialog), scripts/bench-db-writes (the database's writes per
login) and scripts/bench-chart (the chart, matplotlib) are the programs it runs beside wrk.
"""
