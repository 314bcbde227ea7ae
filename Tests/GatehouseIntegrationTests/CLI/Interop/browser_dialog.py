"""Plays the person in the feed or requests dialog for `gatehouse dialog --no-browser`.

Usage: python3 browser_dialog.py DIALOG_URL EMAIL PASSWORD (post MESSAGE AUDIENCE | send | cancel)

Opens the dialog, logs in if asked (the shared login form, with its `kind`), posts or sends (to every
friend offered) or cancels, then follows the redirect to the CLI's loopback listener. Prints what the
loopback page said.
"""
import re
import sys
import urllib.parse

import requests

url, email, password, action = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
parts = urllib.parse.urlsplit(url)
origin = f"{parts.scheme}://{parts.netloc}"
s = requests.Session()


def hidden(name, html):
    m = re.search(r'name="%s" value="([^"]*)"' % name, html)
    return m.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=").replace("&quot;", '"') if m else ""


page = s.get(url, allow_redirects=False)
if 'action="/dialog/oauth/login"' in page.text:
    login = s.post(origin + "/dialog/oauth/login", data={"csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text),
                                                         "kind": hidden("kind", page.text), "email": email, "password": password},
                   allow_redirects=False)
    page = s.get(origin + login.headers["Location"], allow_redirects=False)
if page.status_code == 302:
    redirect = page.headers["Location"]
else:
    feed = 'action="/dialog/feed/post"' in page.text
    form = [("csrf_token", hidden("csrf_token", page.text)), ("dialog", hidden("dialog", page.text))]
    if action == "cancel":
        form.append(("action", "cancel"))
    elif action == "post":
        form += [("action", "post"), ("message", sys.argv[5]), ("audience", sys.argv[6])]
    else:
        form.append(("action", "send"))
        form += [("to", i) for i in re.findall(r'name="to" value="([^"]+)"', page.text)]
    done = s.post(origin + ("/dialog/feed/post" if feed else "/dialog/apprequests/send"), data=form, allow_redirects=False)
    redirect = done.headers["Location"]

page = requests.get(redirect.split("#")[0])
print("loopback page:", page.status_code, re.sub(r"<[^>]+>", " ", page.text)[:200].strip())
