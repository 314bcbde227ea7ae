"""A back end's Facebook Login, tested with no browser and no Swift: set-up, code exchange, /me, revocation."""
import facebook  # facebook-sdk 3.1.0, unmodified: only its documented base-URL globals point at Gatehouse (it knows Graph versions up to 3.1)
import pytest
import requests

REDIRECT_URI = "https://shop.example/auth/callback"


@pytest.fixture
def shop(admin, gatehouse):
    base_url, _ = gatehouse
    facebook.FACEBOOK_GRAPH_URL = base_url + "/"
    facebook.FACEBOOK_WWW_URL = base_url + "/"
    app = admin.create_app(name="Corner Shop", redirect_uris=[REDIRECT_URI], approved_permissions=["email"])
    person = admin.create_person(email="alice@shop.test", password="alice-shops", first_name="Alice", last_name="Anders")
    return app, person


def test_a_code_exchanged_by_facebook_sdk_reads_me(admin, shop):
    app, person = shop
    code = admin.mint_code(app["id"], person["id"], REDIRECT_URI, ["public_profile", "email"])["code"]
    # The library's own code exchange, as a back end's callback runs it.
    token = facebook.GraphAPI(version="3.1").get_access_token_from_code(code, REDIRECT_URI, app["id"], app["secret"])
    me = facebook.GraphAPI(token["access_token"], version="3.1").get_object("me", fields="id,name,email")
    assert me["name"] == "Alice Anders"
    assert me["email"] == "alice@shop.test"


def test_a_revoked_token_answers_190(admin, shop, gatehouse):
    app, person = shop
    minted = admin.mint_token(app["id"], person["id"], ["public_profile"])
    graph = facebook.GraphAPI(minted["access_token"], version="3.1")
    assert graph.get_object("me")["name"] == "Alice Anders"
    admin.revoke_token(minted["id"])
    with pytest.raises(facebook.GraphAPIError) as refused:
        graph.get_object("me")
    assert refused.value.code == 190


def test_reset_leaves_nothing_behind(admin, shop, gatehouse):
    base_url, _ = gatehouse
    app, person = shop
    admin.reset()
    assert admin.call("GET", "/apps")["data"] == []
    assert admin.call("GET", f"/people/{person['id']}", expect=(404,))["type"].endswith("/not-found")
    # The app's credentials no longer work either.
    answer = requests.get(base_url + "/v27.0/oauth/access_token", params={
        "client_id": app["id"], "client_secret": app["secret"], "grant_type": "client_credentials"})
    assert answer.status_code == 400


def test_the_admin_api_needs_the_token_in_production(gatehouse):
    base_url, token = gatehouse
    answer = requests.get(base_url + "/admin/api/v1/apps")
    if token:
        assert answer.status_code == 401
        assert answer.headers["Content-Type"].startswith("application/problem+json")
    else:
        # A development server reached without a token is open on loopback, by design.
        assert answer.status_code == 200
