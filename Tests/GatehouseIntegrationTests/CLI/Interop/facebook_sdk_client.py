"""An unmodified Facebook client library (facebook-sdk 3.1.0, `import facebook`) logging in against Gatehouse.

Usage: python3 facebook_sdk_client.py BASE_URL DEV_SEED_JSON

Only the library's documented base-URL globals are changed. The browser part of the
login (which a person does) is played with `requests`. Prints one line per check and
exits non-zero on the first failure.
"""
import json
import re
import sys
import urllib.parse

import facebook  # facebook-sdk
import requests

base, seed_path = sys.argv[1].rstrip("/"), sys.argv[2]
seed = json.load(open(seed_path))
app_id, app_secret = seed["app"]["id"], seed["app"]["secret"]
redirect_uri = seed["app"]["redirect_uris"][0]

facebook.FACEBOOK_GRAPH_URL = base + "/"
facebook.FACEBOOK_WWW_URL = base + "/"

checks = 0


def check(name, condition, detail=""):
    global checks
    if not condition:
        print(f"FAIL {name} {detail}")
        sys.exit(1)
    checks += 1
    print(f"ok   {name}")


def hidden(html, name):
    match = re.search(r'name="%s" value="([^"]*)"' % name, html)
    return match.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=") if match else ""


def browser_login(auth_url, email, password):
    """Plays the person: log in, consent to everything offered, return the redirect URL."""
    s = requests.Session()
    page = s.get(auth_url)
    check("dialog page served", page.status_code == 200, page.status_code)
    login = s.post(base + "/dialog/oauth/login", data={
        "csrf_token": hidden(page.text, "csrf_token"), "dialog": hidden(page.text, "dialog"),
        "email": email, "password": password}, allow_redirects=False)
    check("login answers 303", login.status_code == 303, login.status_code)
    consent = s.get(base + login.headers["Location"], allow_redirects=False)
    form = {"csrf_token": hidden(consent.text, "csrf_token"), "dialog": hidden(consent.text, "dialog"), "action": "continue"}
    perms = re.findall(r'name="permission" value="([^"]+)"', consent.text)
    done = s.post(base + "/dialog/oauth/consent", data=list(form.items()) + [("permission", p) for p in perms], allow_redirects=False)
    check("consent answers 303", done.status_code == 303, done.status_code)
    return done.headers["Location"]


def code_from(location):
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    return query["code"][0]


graph = facebook.GraphAPI(version="2.8")
auth_url = graph.get_auth_url(app_id, redirect_uri, perms=["email", "user_friends"], state="py-state")
check("auth url points at gatehouse", auth_url.startswith(base + "/v2.8/dialog/oauth?"), auth_url)

alice, bob = seed["users"][0], seed["users"][1]
location = browser_login(auth_url, alice["email"], alice["password"])
check("state echoed", urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["state"] == ["py-state"])
check("facebook fragment appended", location.endswith("#_=_"))

token = graph.get_access_token_from_code(code_from(location), redirect_uri, app_id, app_secret)
check("code exchanged", token["access_token"].startswith("EAA") and token["token_type"] == "bearer", token)
api = facebook.GraphAPI(access_token=token["access_token"], version="2.8")
me = api.get_object("me", fields="id,name,email,first_name")
check("/me read", me["name"] == alice["name"] and me["email"] == alice["email"] and me["first_name"] == alice["name"].split()[0], me)
check("version header read", api.get_version() == "2.8")
check("permissions", api.get_permissions(me["id"]) == {"public_profile", "email", "user_friends"})

debug = api.debug_access_token(token["access_token"], app_id, app_secret)["data"]
check("debug_token", debug["is_valid"] and debug["app_id"] == app_id and debug["user_id"] == me["id"], debug)
app_token = graph.get_app_access_token(app_id, app_secret)
check("app token", app_token.startswith(app_id + "|"))
extended = api.extend_access_token(app_id, app_secret)
check("long-lived exchange", extended["access_token"].startswith("EAA") and extended["expires_in"] > 5_000_000, extended)

code_bob = code_from(browser_login(auth_url, bob["email"], bob["password"]))
graph.get_access_token_from_code(code_bob, redirect_uri, app_id, app_secret)
try:
    graph.get_access_token_from_code(code_bob, redirect_uri, app_id, app_secret)
    check("replayed code refused", False)
except facebook.GraphAPIError as error:
    check("replayed code refused", error.code == 100 and "has been used" in str(error), error.result)
friends = api.get_connections("me", "friends", limit=1)
check("friends who use the app", [f["name"] for f in friends["data"]] == [bob["name"]] and friends["summary"]["total_count"] == 2, friends)
check("all connections via paging", [f["name"] for f in api.get_all_connections("me", "friends", limit=1)] == [bob["name"]])

picture = requests.get(api.get_object("me", fields="picture.type(large)")["picture"]["data"]["url"])
check("picture is a PNG", picture.status_code == 200 and picture.content[:8] == b"\x89PNG\r\n\x1a\n")

removed = api.request(me["id"] + "/permissions", method="DELETE")
check("app removed", removed == {"success": True}, removed)
try:
    api.get_object("me")
    check("token dead after removal", False)
except facebook.GraphAPIError as error:
    check("token dead after removal", error.code == 190 and error.result["error"]["error_subcode"] == 458, error.result)

print(f"facebook-sdk interop: {checks} checks passed")
