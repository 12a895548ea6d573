"""The /api/v1/ foundation: one error shape naming the field, bounded JSON bodies, both ways
to authenticate, and docs that load with no network."""

from __future__ import annotations

import json

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client

from chat.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture
def bearer(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _post(client, url, body, **extra):
    return client.post(url, body, content_type="application/json", **extra)


def test_a_missing_field_is_400_naming_it_and_nothing_is_created(client, bearer, store):
    response = _post(client, "/api/v1/instances", "{}", **bearer)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "missing_field" and "character_id" in error["fields"]
    assert store.instance_ids() == []


def test_a_field_of_the_wrong_type_is_400_naming_it(client, bearer, character):
    response = _post(client, "/api/v1/instances",
                     json.dumps({"character_id": character, "background_id": 5}), **bearer)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["background_id"]


def test_a_bad_id_names_its_field(client, bearer):
    response = _post(client, "/api/v1/instances", json.dumps({"character_id": "../x"}), **bearer)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_id"
    assert "character_id" in response.json()["error"]["fields"]


@pytest.mark.parametrize("url", ["/api/v1/instances", "/api/v1/chat"])
@pytest.mark.parametrize("depth", [100, 200_000])
def test_deeply_nested_json_is_400_not_a_crash(client, bearer, url, depth):
    body = '{"character_id": ' + "[" * depth + "]" * depth + "}"
    response = _post(client, url, body, **bearer)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"
    assert "nests deeper" in response.json()["error"]["message"]


@pytest.mark.parametrize("url", ["/api/v1/instances", "/api/v1/chat"])
def test_a_body_over_the_limit_is_413(client, bearer, settings, url):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = _post(client, url, json.dumps({"character_id": "x" * 2000}), **bearer)
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def test_no_credentials_and_a_bad_token_are_401_json(client, alice):
    assert client.get("/api/v1/instances").json()["error"]["code"] == "unauthorized"
    client.force_login(alice)
    # A wrong token is refused even next to a good session: the caller meant the token.
    response = client.get("/api/v1/instances", HTTP_AUTHORIZATION="Bearer pl_wrong")
    assert response.status_code == 401


def test_a_session_write_needs_the_csrf_header(alice, character, store):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    body = json.dumps({"character_id": character})
    refused = _post(strict, "/api/v1/instances", body)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "csrf"
    assert store.instance_ids() == []
    strict.get("/api/v1/instances")  # a page view would set the cookie the same way
    strict.cookies["csrftoken"] = token = "a" * 32
    accepted = _post(strict, "/api/v1/instances", body, HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201
    assert strict.get("/api/v1/instances").json()["instances"][0]["owner"] == "alice"


def test_another_accounts_instance_is_404_json(client, instance, bob):
    client.force_login(bob)
    response = client.get(f"/api/v1/instances/{instance}")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert client.get("/api/v1/instances").json() == {"instances": []}


def test_docs_and_schema_are_served_from_our_own_files(client):
    page = client.get("/api/v1/docs").content.decode()
    assert static("ninja/swagger-ui-bundle.js") in page
    assert "cdn." not in page and "https://" not in page
    assert '"validatorUrl": null' in page
    assert '<meta name="viewport" content="width=device-width' in page  # a phone's own width
    assert finders.find("ninja/swagger-ui-bundle.js") and finders.find("ninja/swagger-ui.css")
    schema = client.get("/api/v1/openapi.json").json()
    assert "/api/v1/instances" in schema["paths"]
    assert {"BearerToken", "SessionCsrf"} <= set(schema["components"]["securitySchemes"])
