"""Plays the person on another device for `gatehouse login --device`.

Usage: python3 device_person.py VERIFICATION_URL USER_CODE EMAIL PASSWORD (continue | cancel)

Opens /device, logs in, enters the code the CLI printed, and presses Continue (granting everything offered)
or Cancel on the consent page. Prints the final page's headline.
"""
import re
import sys

import requests

url, user_code, email, password, action = sys.argv[1:6]
origin = url.rsplit("/device", 1)[0]
s = requests.Session()


def hidden(name, html):
    m = re.search(r'name="%s" value="([^"]*)"' % name, html)
    return m.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=").replace("&quot;", '"') if m else ""


page = s.get(url)
s.post(origin + "/device/signin", data={"csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text),
                                         "email": email, "password": password}, allow_redirects=False)
consent = s.get(origin + "/device", params={"user_code": user_code})
offered = re.findall(r'name="permission" value="([^"]+)"', consent.text)
form = [("csrf_token", hidden("csrf_token", consent.text)), ("dialog", hidden("dialog", consent.text)), ("action", action)]
form += [("permission", p) for p in offered]
done = s.post(origin + "/device/consent", data=form)
m = re.search(r"<h1>(.*?)</h1>", done.text)
print("device page:", done.status_code, m.group(1) if m else done.text[:200])
