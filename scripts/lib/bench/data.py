"""The benchmark's data: databases (SQLite files or a throwaway PostgreSQL cluster), the seed `gatehouse seed bench`
writes, and the request templates built from it, shared by scripts/bench and scripts/profile.

Templates hold ITEM (a line of the items file) or ITEM1, ITEM2 (its space-separated parts): lua/rotate.lua fills them.
"""
import json
import os
import sqlite3
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

from .proc import ROOT

POSTGRES_CLUSTER = str(ROOT / "scripts" / "postgres-cluster")
DB_WRITES = str(ROOT / "scripts" / "bench-db-writes")


def quote(text):
    return urllib.parse.quote(text, safe="")


class Seed:
    """DATA_DIR/bench-seed.json: the bench app, its people's tokens and codes, and the seeded browser sessions."""

    def __init__(self, data_dir):
        self.path = Path(data_dir) / "bench-seed.json"
        self.values = json.loads(self.path.read_text())
        self.app, self.secret = str(self.values["app_id"]), str(self.values["app_secret"])
        self.redirect = str(self.values["redirect_uri"])

    def __getitem__(self, key):
        return self.values[key]

    def write_list(self, key, path):
        """One item a line (the Lua scripts' items file); returns PATH."""
        Path(path).write_text("\n".join(self.values[key]) + "\n")
        return path

    def write_sessions(self, path):
        """One line per seeded person's session: the cookie, then the form token bound to it (URL-encoded)."""
        Path(path).write_text("".join(f"{cookie} {quote(form)}\n" for cookie, form in self.values.get("sessions", [])))
        return path


# ---- request templates ----
ME_PATH = "/me?fields=id,name,email&access_token=ITEM"
CONSENT_PATH = "/dialog/oauth/consent"


def debug_token_path(app, secret):
    return f"/debug_token?input_token=ITEM&access_token={app}%7C{secret}"


def code_exchange_path(seed):
    return (f"/oauth/access_token?client_id={seed.app}&client_secret={seed.secret}"
            f"&redirect_uri={quote(seed.redirect)}&code=ITEM")


def token_exchange_path(seed):
    """Each exchange stores a new long-lived token: one write per request."""
    return (f"/oauth/access_token?grant_type=fb_exchange_token&client_id={seed.app}&client_secret={seed.secret}"
            "&fb_exchange_token=ITEM")


def client_credentials_path(seed):
    """The app access token: one new token row per request."""
    return f"/oauth/access_token?grant_type=client_credentials&client_id={seed.app}&client_secret={seed.secret}"


def consent(seed, many=False):
    """(Cookie, body) of the consent POST: the seeded session's person pressing Continue (a 303 with a new code);
    MANY: each seeded person with their own session, from the sessions file's lines (ITEM1 cookie, ITEM2 form token)."""
    dialog = f"client_id={seed.app}&redirect_uri={quote(seed.redirect)}&response_type=code&scope=email"
    session, form = ("ITEM1", "ITEM2") if many else (seed["session_cookie"], quote(seed["csrf_form_token"]))
    cookie = f"gh_session={session}; gh_csrf={seed['csrf_token']}"
    body = f"csrf_token={form}&dialog={quote(dialog)}&action=continue&permission=public_profile&permission=email"
    return cookie, body


# ---- databases ----
class Databases:
    """SQLite files in each dataset's folder, or one throwaway PostgreSQL cluster (scripts/postgres-cluster) with a
    database per dataset (and one for the commit probe)."""

    def __init__(self, tool, kind):
        self.tool, self.kind, self.pg_dir, self.url = tool, kind, None, None
        if kind == "postgres":
            # Beside the work folder, not in it: as root the cluster runs as the postgres user, who cannot enter
            # a mktemp folder.
            self.pg_dir = tempfile.mkdtemp(prefix="gatehouse-bench-pg.", dir="/tmp")
            os.chmod(self.pg_dir, 0o755)
            self.url = tool.output([POSTGRES_CLUSTER, "create", self.pg_dir])
            tool.say(f"PostgreSQL cluster at {self.url}")

    def for_dataset(self, name, data_dir):
        """The --database value for a dataset."""
        if self.kind == "postgres":
            self.tool.run(["psql", "-q", self.url, "-c", f"CREATE DATABASE {name}"], stdout=subprocess.DEVNULL)
            return self.url.replace("/postgres?", f"/{name}?", 1)
        return f"sqlite:{data_dir}/gatehouse.sqlite"

    def query(self, database, sqlite_path, sql):
        """Rows ("|" between columns): SQLite through Python's sqlite3, PostgreSQL through psql."""
        if self.kind == "postgres":
            return self.tool.output(["psql", "-X", "-q", "-At", database, "-c", sql])
        db = sqlite3.connect(sqlite_path)
        rows = ["|".join(map(str, row)) for row in db.execute(sql)]
        db.commit()
        db.close()
        return "\n".join(rows)

    def snapshot(self, database, sqlite_path, out):
        """scripts/bench-db-writes' snapshot of a dataset, into OUT."""
        if self.kind == "postgres":
            # An idle backend reports its counters at once only if its last report is a second old, else after ten
            # seconds (PostgreSQL's PGSTAT_IDLE_INTERVAL): wait that out so no write of the rows before is left over.
            time.sleep(11)
            argv = [DB_WRITES, "snapshot", "postgres", database]
        else:
            argv = [DB_WRITES, "snapshot", "sqlite", str(sqlite_path)]
        with open(out, "w") as f:
            self.tool.run(argv, stdout=f)

    def destroy(self):
        if self.pg_dir:
            subprocess.run([POSTGRES_CLUSTER, "destroy", self.pg_dir])
            self.pg_dir = None
