"""Logs in against a running Gatehouse the way an app and a person do, from outside its root file system.

Usage: python3 login.py BASE_URL APP_ID APP_SECRET REDIRECT_URI EMAIL PASSWORD [CA_FILE]

The person opens the OAuth dialog, signs in and consents; the app exchanges the code for a token and reads /me.
Prints one line per step and exits non-zero on the first surprise. CA_FILE verifies an https BASE_URL.
"""
import re
import sys
import urllib.parse

import requests

base, app_id, secret, redirect_uri, email, password = sys.argv[1:7]
verify = sys.argv[7] if len(sys.argv) > 7 else True
s = requests.Session()
s.verify = verify
s.trust_env = False  # else REQUESTS_CA_BUNDLE in the environment replaces CA_FILE, and a proxy may be tried
app = requests.Session()  # the app's server: none of the person's cookies
app.verify = verify
app.trust_env = False


def hidden(name, html):
    m = re.search(r'name="%s" value="([^"]*)"' % name, html)
    if not m:
        sys.exit(f"no {name} field in the page: {html[:300]}")
    return m.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=").replace("&quot;", '"')


def expect(response, status, step):
    """The response, when its status is `status` (a redirect: any of 302 and 303); else the check fails here."""
    ok = response.status_code in ((302, 303) if status == 302 else (status,))
    if not ok:
        sys.exit(f"{step}: HTTP {response.status_code}, expected {status}: {response.text[:300]}")
    print(f"{step}: HTTP {response.status_code}", flush=True)
    return response


query = urllib.parse.urlencode({"client_id": app_id, "redirect_uri": redirect_uri, "scope": "email",
                                "state": "package-check", "response_type": "code"})
page = expect(s.get(f"{base}/v27.0/dialog/oauth?{query}"), 200, "dialog")
login = expect(s.post(f"{base}/dialog/oauth/login", allow_redirects=False, data={
    "csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text),
    "email": email, "password": password}), 302, "sign-in")
consent = s.get(urllib.parse.urljoin(base, login.headers["Location"]), allow_redirects=False)
if consent.status_code in (302, 303):
    redirect = consent.headers["Location"]
else:
    expect(consent, 200, "consent page")
    form = [("csrf_token", hidden("csrf_token", consent.text)), ("dialog", hidden("dialog", consent.text)),
            ("action", "continue")] + [("permission", p) for p in re.findall(r'name="permission" value="([^"]+)"', consent.text)]
    redirect = expect(s.post(f"{base}/dialog/oauth/consent", data=form, allow_redirects=False), 302, "consent").headers["Location"]

params = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect).query)
if params.get("state") != ["package-check"] or "code" not in params:
    sys.exit(f"redirect without code and state: {redirect}")
print("redirect: code received")
token = expect(app.get(f"{base}/v27.0/oauth/access_token", params={
    "client_id": app_id, "client_secret": secret, "redirect_uri": redirect_uri, "code": params["code"][0]}), 200, "code exchange").json()
me = expect(app.get(f"{base}/v27.0/me", params={
    "access_token": token["access_token"], "fields": "id,name,email"}), 200, "/me").json()
if me.get("email") != email:
    sys.exit(f"/me answered {me}, expected the email {email}")
print(f"/me: {me['name']} <{me['email']}> id {me['id']}")
