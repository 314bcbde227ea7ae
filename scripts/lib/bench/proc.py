"""Processes for scripts/bench and scripts/profile: commands, the server under test, and what /proc says about it."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CLK_TCK = os.sysconf("SC_CLK_TCK")


class Tool:
    """The name a message starts with ("bench", "profile", "bench-compare") and the commands it runs."""

    def __init__(self, name):
        self.name = name

    def say(self, message):
        print(f"{self.name}: {message}", file=sys.stderr, flush=True)

    def fail(self, message, status=1):
        self.say(message)
        sys.exit(status)

    def run(self, argv, **kwargs):
        """Run a command; a failure ends the tool with its status, as `set -e` did."""
        sys.stderr.flush()
        result = subprocess.run([str(a) for a in argv], **kwargs)
        if result.returncode != 0:
            self.fail(f"{argv[0]} {argv[1] if len(argv) > 1 else ''} failed (exit {result.returncode})",
                      result.returncode)
        return result

    def output(self, argv, **kwargs):
        """A command's standard output, without its last newline."""
        return self.run(argv, stdout=subprocess.PIPE, text=True, **kwargs).stdout.rstrip("\n")


def setup():
    """Run from the repository's root, and turn SIGTERM into an exit so that clean-up still runs."""
    os.chdir(ROOT)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _stat(pid):
    """The fields of /proc/PID/stat after the command name, numbered as proc(5) numbers them from 3."""
    try:
        text = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    return dict(enumerate(text[text.rindex(")") + 2:].split(), start=3))


def cpu_ticks(pid):
    """User + system CPU time of a process, in clock ticks (every thread: event loops, the SQLite pool, the watcher)."""
    fields = _stat(pid)
    return int(fields[14]) + int(fields[15]) if fields else 0


def sys_ticks(pid):
    fields = _stat(pid)
    return int(fields[15]) if fields else 0


def cpu_count():
    """What `nproc` prints: the cores this process may run on."""
    return len(os.sched_getaffinity(0))


class Sampler:
    """A process's RSS every half second, from start to stop, on a thread of its own."""

    def __init__(self, pid):
        self.pid, self.samples, self._stop = pid, [], threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.is_set():
            try:
                os.kill(self.pid, 0)
            except OSError:
                return
            self.samples.append(rss_kb(self.pid))
            self._stop.wait(0.5)

    def stop(self):
        """The peak RSS in kB (0 without samples)."""
        self._stop.set()
        self._thread.join()
        return max(self.samples, default=0)


class Server:
    """`gatehouse serve --bench-routes` (or `gatehouse bench-reference`) pinned to one core, one at a time."""

    def __init__(self, tool, binary, work, cpu, poll=0.005):
        self.tool, self.binary, self.work, self.cpu, self.poll = tool, str(binary), Path(work), str(cpu), poll
        self.process, self.port = None, 0

    @property
    def pid(self):
        return self.process.pid

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, data, database, prefix=(), journal=None):
        """Serve DATA with DATABASE, PREFIX running the binary (valgrind); returns milliseconds to the first 200.

        The journal is off, as in production (development mode, which the bench routes need, turns it on);
        the row me_journal measures it on. SERVER_JOURNAL overrides."""
        journal = journal or os.environ.get("SERVER_JOURNAL") or "false"
        self.port = free_port()
        t0 = time.time_ns()
        self._spawn([*prefix, self.binary, "serve", "--port", self.port, "--data-dir", data, "--database", database,
                     "--mode", "development", "--bench-routes", "--journal", journal, "--log-level", "error"])
        return (time.time_ns() - t0) // 1_000_000

    def start_reference(self, prefix=()):
        """The bare Hummingbird app."""
        self.port = free_port()
        self._spawn([*prefix, self.binary, "bench-reference", "--port", self.port])

    def _spawn(self, argv):
        log = open(self.work / "server.log", "w")
        self.process = subprocess.Popen(["taskset", "-c", self.cpu, *map(str, argv)], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        url = f"{self.base}/bench/hello"
        while subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout != "200":
            if self.process.poll() is not None:
                sys.stderr.write((self.work / "server.log").read_text(errors="replace"))
                self.process = None
                if self.tool.name == "profile":
                    sys.exit(1)
                self.tool.fail("server died")
            time.sleep(self.poll)

    def stop(self):
        if self.process:
            try:
                self.process.terminate()
            except OSError:
                pass
            self.process.wait()
            self.process = None
