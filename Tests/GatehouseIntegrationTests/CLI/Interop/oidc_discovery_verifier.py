"""A Limited Login backend that knows only Gatehouse's discovery URL, verifying id_tokens with joserfc
(an independent JOSE implementation). Usage: python3 oidc_discovery_verifier.py BASE_URL DEV_SEED_JSON"""
import json
import re
import sys
import time
import urllib.parse

import requests
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.errors import JoseError

base, seed = sys.argv[1].rstrip("/"), json.load(open(sys.argv[2]))
app_id, user = seed["app"]["id"], seed["users"][0]
checks = 0


def check(name, ok, detail=""):
    global checks
    if not ok:
        print(f"FAIL {name} {detail}")
        sys.exit(1)
    checks += 1
    print(f"ok   {name}")


def hidden(name, html):
    m = re.search(r'name="%s" value="([^"]*)"' % name, html)
    return m.group(1).replace("&amp;", "&").replace("&#x2F;", "/").replace("&#x3D;", "=") if m else ""


# The person's Limited Login (what an iOS app does), to get a real id_token.
s = requests.Session()
dialog = base + "/v27.0/dialog/oauth?" + urllib.parse.urlencode({
    "client_id": app_id, "redirect_uri": f"fb{app_id}://authorize/", "response_type": "id_token,graph_domain,user_token_nonce",
    "tp": "ios_14_do_not_track", "nonce": "backend-nonce", "scope": "openid,email", "state": "x"})
page = s.get(dialog)
login = s.post(base + "/dialog/oauth/login", data={"csrf_token": hidden("csrf_token", page.text), "dialog": hidden("dialog", page.text),
                                                   "email": user["email"], "password": user["password"]}, allow_redirects=False)
consent = s.get(base + login.headers["Location"])
done = s.post(base + "/dialog/oauth/consent", data=[("csrf_token", hidden("csrf_token", consent.text)), ("dialog", hidden("dialog", consent.text)),
                                                    ("action", "continue"), ("permission", "email")], allow_redirects=False)
fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(done.headers["Location"]).fragment)
token = fragment["id_token"][0]
check("limited login gave an id_token and no access token", "access_token" not in fragment)

# The backend: discovery → jwks_uri → verify. It knows nothing else about Gatehouse.
discovery = requests.get(base + "/.well-known/openid-configuration").json()
check("discovery issuer is the server", discovery["issuer"] == base, discovery["issuer"])
keys = KeySet.import_key_set(requests.get(discovery["jwks_uri"]).json())
decoded = jwt.decode(token, keys, algorithms=["RS256"])
registry = jwt.JWTClaimsRegistry(iss={"essential": True, "value": discovery["issuer"]}, aud={"essential": True, "value": app_id},
                                 sub={"essential": True}, exp={"essential": True}, iat={"essential": True},
                                 nonce={"essential": True, "value": "backend-nonce"})
registry.validate(decoded.claims)
check("joserfc verifies signature and claims", decoded.header["alg"] == "RS256" and decoded.claims["email"] == user["email"])
check("no at_hash", "at_hash" not in decoded.claims)
check("iat is recent", abs(time.time() - decoded.claims["iat"]) < 600)


def refused(name, forged, **registry_values):
    try:
        claims = jwt.decode(forged, keys, algorithms=["RS256"]).claims
        jwt.JWTClaimsRegistry(**registry_values).validate(claims)
    except (JoseError, ValueError):
        check(name + " refused", True)
        return
    check(name + " refused", False)


h, p, sig = token.split(".")
refused("tampered signature", f"{h}.{p}.{sig[:-4]}AAAA")
refused("tampered payload", f"{h}.{p[:-4]}AAAA.{sig}")
refused("alg none", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + p + ".")
refused("wrong audience", token, aud={"essential": True, "value": "someone-else"})
refused("wrong issuer", token, iss={"essential": True, "value": "https://www.facebook.com"})
refused("wrong nonce", token, nonce={"essential": True, "value": "other"})
print(f"oidc discovery verifier: {checks} checks passed")
