"""Plays the person in the browser for `gatehouse login --no-browser`.

Usage: python3 browser_login.py DIALOG_URL EMAIL PASSWORD (grant [PERM,...] | cancel)

Opens the dialog, logs in, ticks the given permissions (or all offered), presses Continue or Cancel,
then follows the redirect to the CLI's loopback listener, and relays the URL fragment the way the
listener's page script does. Prints what the loopback page said.
"""
import re
import sys
import urllib.parse

import requests

url, email, password, action = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
chosen = sys.argv[5].split(",") if len(sys.argv) > 5 else None
parts = urllib.parse.urlsplit(url)
origin = f"{parts.scheme}://{parts.netloc}"
s = requests.Session()


def hidden(name, html):
    m = re.search(r'name="%s" value="([^"]*)"' % name, html)
    return m.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=").replace("&quot;", '"') if m else ""


page = s.get(url)
login = s.post(origin + "/dialog/oauth/login", data={"csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text),
                                                     "email": email, "password": password}, allow_redirects=False)
consent = s.get(origin + login.headers["Location"], allow_redirects=False)
if consent.status_code == 302:
    redirect = consent.headers["Location"]
else:
    offered = re.findall(r'name="permission" value="([^"]+)"', consent.text)
    form = [("csrf_token", hidden("csrf_token", consent.text)), ("dialog", hidden("dialog", consent.text)),
            ("action", "cancel" if action == "cancel" else "continue")]
    form += [("permission", p) for p in (chosen if chosen is not None else offered)]
    done = s.post(origin + "/dialog/oauth/consent", data=form, allow_redirects=False)
    if done.status_code == 200 and 'action="/dialog/oauth/publish"' in done.text:
        # The publish step: keep the read choices, grant the publish permissions offered (or chosen), keep the audience.
        publish = [("csrf_token", hidden("csrf_token", done.text)), ("dialog", hidden("dialog", done.text)),
                   ("action", "skip" if action == "cancel" else "continue")]
        publish += [("read", r) for r in re.findall(r'name="read" value="([^"]+)"', done.text)]
        publish += [("permission", p) for p in re.findall(r'name="permission" value="([^"]+)"', done.text) if chosen is None or p in chosen]
        done = s.post(origin + "/dialog/oauth/publish", data=publish, allow_redirects=False)
    redirect = done.headers["Location"]

target = urllib.parse.urlsplit(redirect)
page = requests.get(redirect.split("#")[0])
if target.fragment:
    page = requests.get(f"{target.scheme}://{target.netloc}/callback/complete?{target.fragment}")
print("loopback page:", page.status_code, re.sub(r"<[^>]+>", " ", page.text)[:200].strip())
