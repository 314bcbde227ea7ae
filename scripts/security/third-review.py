"""Issue 39's findings, checked from outside over HTTP against two `gatehouse serve` binaries.

    python3 scripts/security/third-review.py BEFORE_BINARY AFTER_BINARY

Each binary is started twice on a free loopback port with a temporary data folder: in production mode (findings
1, 11 and 4, with admin tokens made by `gatehouse admin token create` beside the running server) and in
development mode behind a trusted proxy on 127.0.0.1 (findings 6, 10, 3, 9, 8, 5 and 7, using the dev seed's
people, the keyless admin API and the controllable clock). Production refuses an http:// public URL, and an
https:// one with neither TLS nor a trusted proxy, so it runs as if behind a TLS proxy on loopback; its cookies
are then `Secure`, and the script sends them by hand. Prints one line per finding and binary, then a table; exits
1 if any finding checked here is still open on AFTER_BINARY."""
import contextlib, html, json, re, shutil, socket, subprocess, sys, tempfile, time
import requests

TITLES = {
    1: "a read-only token reads secrets", 2: "random session cookies slow every request",
    3: "a stranger spends the owner's reset budget", 4: "state reset in production",
    5: "mail amplification, tables that only grow", 6: "two-factor turned on without the password",
    7: "TOTP guessing", 8: "links outlive an email change", 9: "the outbox keeps a deleted person's mail",
    10: "/x/oauth/status ignores Require PKCE", 11: "a write token is a password oracle",
}
NOT_FROM_OUTSIDE = {2: "covered by SessionActivityFloodTests and measured by scripts/security/session-flood.py"}
WORDS = {True: "closed", False: "HOLE", None: "ERROR"}  # None: the check itself failed
PAGE = "https://shop.example"  # the JavaScript SDK page of finding 10's app


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def call(client, method, url, **kw):
    """One request through `requests` or a Session: a timeout, and redirects reported rather than followed."""
    kw.setdefault("timeout", 30); kw.setdefault("allow_redirects", False)
    return client.request(method, url, **kw)


def hidden(name, page):
    m = re.search(r'name="%s" value="([^"]*)"' % name, page)
    return html.unescape(m.group(1)) if m else ""


def wait_ready(base, proc, deadline=120):
    last, end = "nothing yet", time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit("the server exited with %s before it was ready" % proc.returncode)
        try:
            r = requests.get(base + "/healthz", timeout=2)
            if r.status_code == 200: return
            last = "HTTP %d" % r.status_code
        except Exception as e:  # any request error means "not yet"
            last = repr(e)
        time.sleep(0.2)
    raise SystemExit("the server was not ready after %d s; last saw: %s" % (deadline, last))


@contextlib.contextmanager
def serve(binary, args):
    d = tempfile.mkdtemp(prefix="gh-third-review-")
    port = free_port()
    proc = None
    try:
        proc = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", d] + args,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_ready("http://127.0.0.1:%d" % port, proc)
        yield "http://127.0.0.1:%d" % port, d
    finally:
        if proc is not None:
            proc.terminate()
            try: proc.wait(timeout=10)
            except subprocess.TimeoutExpired: proc.kill(); proc.wait()
        shutil.rmtree(d, ignore_errors=True)


def admin_token(binary, d, read_only):
    """A token made by the CLI on the running server's SQLite file, as an operator would."""
    args = [binary, "admin", "token", "create", "--name", "ro" if read_only else "rw", "--data-dir", d, "--json"]
    out = subprocess.run(args + (["--read-only"] if read_only else []), capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return {"Authorization": "Bearer " + json.loads(out)["token"]}


def submit(base, path, fields, ip=None):
    """GETs a form page and POSTs `fields` with its CSRF token and cookie, as a client behind the proxy at `ip`."""
    page = call(requests, "GET", base + path)
    headers = {"Cookie": page.headers["Set-Cookie"].split(";")[0], "X-Forwarded-Proto": "https"}
    if ip: headers["X-Forwarded-For"] = ip
    return call(requests, "POST", base + path, data=dict(fields, csrf_token=hidden("csrf_token", page.text)),
                headers=headers)


def recover(base, email, ip=None):
    return submit(base, "/account/recover", {"email": email}, ip)


def mail_to(api, email, headers=None):
    return call(requests, "GET", api + "/mail", params={"to": email}, headers=headers).json()["data"]


def log_in(base, email, password):
    """A browser session logged in at /login; returns it and the page the login answered."""
    s = requests.Session()
    page = call(s, "GET", base + "/login")
    done = call(s, "POST", base + "/login", allow_redirects=True, data={
        "csrf_token": hidden("csrf_token", page.text), "next": "/settings/security", "email": email,
        "password": password})
    return s, done


# Production mode: findings 1, 11 and 4 (4 last: on the old code it wipes everything).

def finding_1(base, writer, reader):
    api = base + "/admin/api/v1"
    call(requests, "POST", api + "/apps", headers=writer, json={"name": "x", "redirect_uris": ["https://a.example/cb"]})
    recover(base, "victim@example.com")
    apps = call(requests, "GET", api + "/apps", headers=reader).json()["data"]
    secret = any("secret" in a or "client_token" in a for a in apps)
    state = call(requests, "GET", api + "/state?include_private_keys=true", headers=reader).status_code
    export = call(requests, "GET", base + "/admin/api/export", headers=reader).status_code
    mail = mail_to(api, "victim@example.com", reader)
    link = "reset?c=" in json.dumps(mail)
    return not (secret or link or state == 200 or export == 200), (
        "read-only token: GET /apps lists %d app(s) and %s secrets; GET /state?include_private_keys=true %d; "
        "GET /admin/api/export %d; GET /mail lists %d message(s) to the victim and %s the reset link" % (
            len(apps), "shows their" if secret else "hides their", state, export, len(mail),
            "shows" if link else "hides"))


def finding_11(base, writer, person):
    answers = []
    for password in ["right-password-1", "a-wrong-guess"]:
        body = dict(person, email="victim@example.com", first_name="Vic", last_name="Tim", password=password)
        answers.append(call(requests, "POST", base + "/admin/api/v1/people", headers=writer, json=body))
    same = answers[0].text == answers[1].text
    return answers[0].status_code == answers[1].status_code == 409 and same, (
        "POST /people with the existing id: right password %d, wrong password %d, %s bodies" % (
            answers[0].status_code, answers[1].status_code, "identical" if same else "different"))


def finding_4(base, writer):
    r = call(requests, "POST", base + "/admin/api/v1/state/reset", headers=writer, json={"to": "empty"})
    named = "allow_state_replace" in r.text
    return r.status_code == 403 and named, "write token: POST /state/reset {\"to\":\"empty\"} answered %d%s" % (
        r.status_code, ", naming allow_state_replace" if named else "")


def production(binary, report):
    args = ["--mode", "production", "--public-url", "https://gatehouse.test", "--trusted-proxy", "127.0.0.1"]
    with serve(binary, args) as (base, d):
        writer, reader = admin_token(binary, d, False), admin_token(binary, d, True)
        person = call(requests, "POST", base + "/admin/api/v1/people", headers=writer, json={
            "email": "victim@example.com", "first_name": "Vic", "last_name": "Tim", "password": "right-password-1"})
        report(1, lambda: finding_1(base, writer, reader))
        report(11, lambda: finding_11(base, writer, {"id": person.json()["id"]}))
        report(4, lambda: finding_4(base, writer))


# Development mode: findings 6, 10, 3, 9, 8, 5 and 7 (7 last: it moves the clock).

def finding_6(base, alice):
    s, settings = log_in(base, alice["email"], alice["password"])
    assert "/settings/two-factor/start" in settings.text, "the login did not reach the settings page"
    r = call(s, "POST", base + "/settings/two-factor/start", data={"csrf_token": hidden("csrf_token", settings.text)})
    return r.status_code == 401, "POST /settings/two-factor/start with only csrf_token answered %d%s" % (
        r.status_code, " to " + r.headers["Location"] if "Location" in r.headers else "")


def finding_10(base, person):
    api = base + "/admin/api/v1"
    app = call(requests, "POST", api + "/apps", json={
        "name": "sdk", "redirect_uris": ["https://a.example/cb"], "js_sdk_domains": [PAGE + "/"]}).json()
    arbiter = "/x/connect/xd_arbiter?" + requests.compat.urlencode({"origin": PAGE, "relation": "opener"})
    s = requests.Session()
    page = call(s, "GET", base + "/dialog/oauth", params={
        "client_id": app["id"], "display": "popup", "response_type": "token,signed_request,graph_domain",
        "redirect_uri": arbiter, "scope": "email", "state": "s-1", "sdk": "joey"})
    form = lambda page: {"csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text)}
    login = call(s, "POST", base + "/dialog/oauth/login", data=dict(
        form(page), email=person["email"], password=person["password"]))
    consent = call(s, "GET", base + login.headers["Location"])
    done = call(s, "POST", base + "/dialog/oauth/consent", data=dict(
        form(consent), action="continue", permission="public_profile"))
    assert "#access_token=" in done.headers.get("Location", ""), "the popup login did not finish"
    # Logged in with PKCE off (the dialog would refuse a login without a challenge), then turned on.
    call(requests, "PATCH", api + "/apps/" + app["id"], json={"require_pkce": True})
    status = call(s, "GET", base + "/x/oauth/status", params={"client_id": app["id"]}, headers={"Origin": PAGE}).json()
    token = "with an accessToken" if (status.get("authResponse") or {}).get("accessToken") else "no token"
    return status["status"] != "connected", "require_pkce app: /x/oauth/status answered %r, %s" % (
        status["status"], token)


def finding_3(base, bob):
    stranger = [recover(base, bob["email"], "203.0.113.5").status_code for _ in range(5)]
    owner = recover(base, bob["email"], "198.51.100.7").status_code
    return owner == 200, "5 recoveries from 203.0.113.5 (%s), then the owner's from 198.51.100.7 answered %d" % (
        ",".join(map(str, stranger)), owner)


def finding_9(base, alice):
    recover(base, alice["email"])
    mailed = len(mail_to(base + "/admin/api/v1", alice["email"]))
    deleted = call(requests, "DELETE", base + "/admin/api/v1/people/" + alice["id"]).status_code
    kept = mail_to(base + "/admin/api/v1", alice["email"])
    return mailed > 0 and not kept, "the outbox listed %d message(s) to %s; after DELETE /people/{id} (%d), %d" % (
        mailed, alice["email"], deleted, len(kept))


def finding_8(base, carol):
    api = base + "/admin/api/v1"
    recover(base, carol["email"])
    link = mail_to(api, carol["email"])[0]["links"][0]
    fresh = call(requests, "GET", link).status_code
    call(requests, "PATCH", api + "/people/" + carol["id"], json={"email": "changed@example.com"})
    later = call(requests, "GET", link).status_code
    return later != 200, "reset link %d when mailed, %d after the email changed" % (fresh, later)


def finding_5(base):
    """Two of the new caps: per recipient (sign-up's "someone tried to sign up with your email") and per IPv6 /48.
    Retention needs a month of server time and the hourly pruning: a Swift test."""
    email = "erin@example.com"
    call(requests, "POST", base + "/admin/api/v1/people", json={
        "email": email, "first_name": "Erin", "last_name": "E", "password": "erin-password-1"})
    fields = {"firstname": "Carol", "lastname": "Cho", "email": email, "password": "Carol-pass-1",
              "birthday_day": "7", "birthday_month": "3", "birthday_year": "1992"}
    signups = [submit(base, "/account/signup", fields, "203.0.114.%d" % i).status_code for i in range(1, 12)]
    slash48 = [recover(base, "n%d@example.net" % i, "2001:db8:7:%x::1" % i).status_code for i in range(101)]
    return signups[-1] == 429 and slash48[-1] == 429, (
        "sign-up naming one address from 11 networks: the 11th answered %d; 101 recoveries from 101 /64s of one "
        "/48: the 101st answered %d (retention: AccountMailBudgetTests)" % (signups[-1], slash48[-1]))


def finding_7(base):
    api = base + "/admin/api/v1"
    email, password = "dave@example.com", "dave-password-1"
    dave = call(requests, "POST", api + "/people", json={
        "email": email, "first_name": "Dave", "last_name": "D", "password": password}).json()
    call(requests, "PUT", api + "/people/%s/two_factor" % dave["id"], json={})

    def guesses(n):  # a fresh login to the code checkpoint, then n wrong codes
        s, checkpoint = log_in(base, email, password)
        current = call(requests, "GET", api + "/people/%s/two_factor" % dave["id"]).json()["current_code"]
        form = {"csrf_token": hidden("csrf_token", checkpoint.text), "next": hidden("next", checkpoint.text),
                "code": "111111" if current == "000000" else "000000"}
        return [call(s, "POST", base + "/dialog/login_code", data=form) for _ in range(n)]

    # Five a window, the window passed twice on the server's clock: codes 11 and 12 are past the day's 10.
    for _ in range(2):
        guesses(5)
        call(requests, "POST", api + "/clock/advance", json={"by": "301"})
    last = guesses(2)
    told = [m for m in mail_to(api, email) if m["kind"] == "login_code_failures"]
    slowed = last[1].status_code == 429
    return slowed and bool(told), "wrong codes 11 and 12 answered %s; the owner was %s" % (
        ", ".join("%d%s" % (r.status_code, " Retry-After %s" % r.headers["Retry-After"]
                            if "Retry-After" in r.headers else "") for r in last),
        "mailed (login_code_failures)" if told else "not told")


def read_seed(path, deadline=30):
    """The dev seed's people, which the server writes just after it starts answering."""
    end = time.monotonic() + deadline
    while True:
        try:
            with open(path) as f: return json.load(f)
        except (OSError, ValueError):  # not written yet, or half written
            if time.monotonic() > end: raise
            time.sleep(0.2)


def development(binary, report):
    with serve(binary, ["--trusted-proxy", "127.0.0.1"]) as (base, d):
        seed = read_seed(d + "/dev-seed.json")
        alice, bob, carol = seed["users"][:3]
        report(6, lambda: finding_6(base, alice))
        report(10, lambda: finding_10(base, bob))
        report(3, lambda: finding_3(base, bob))
        report(9, lambda: finding_9(base, alice))
        report(8, lambda: finding_8(base, carol))
        report(5, lambda: finding_5(base))
        report(7, lambda: finding_7(base))


def run(binary, label):
    results = {}

    def report(n, check):
        try:
            closed, observed = check()
        except Exception as e:  # a check that breaks counts as not shown closed
            closed, observed = None, "check failed: %r" % e
        results[n] = closed
        print("%s: finding %d: %s (%s)" % (label, n, WORDS[closed], observed), flush=True)

    production(binary, report)
    development(binary, report)
    for n, why in NOT_FROM_OUTSIDE.items():
        print("%s: finding %d: not checked from outside (%s)" % (label, n, why), flush=True)
    return results


if __name__ == "__main__":
    if len(sys.argv) != 3: raise SystemExit(__doc__)
    before, after = run(sys.argv[1], "before"), run(sys.argv[2], "after")
    word = lambda r, n: WORDS[r[n]] if n in r else "not checked"
    print("\n%-8s %-45s %-12s %-12s" % ("finding", "what", "before", "after"))
    for n in sorted(TITLES):
        print("%-8d %-45s %-12s %-12s" % (n, TITLES[n], word(before, n), word(after, n)))
    still_open = [n for n in after if after[n] is not True]
    not_shown = [n for n in before if before[n] is not False]
    if not_shown: print("\nbefore did not show the hole for finding(s) %s" % ", ".join(map(str, not_shown)))
    if still_open: print("\nstill open (or unchecked) on after: finding(s) %s" % ", ".join(map(str, still_open)))
    sys.exit(1 if still_open else 0)
