"""/api/v1/ is one documented API: every URL it serves is in the OpenAPI schema, and a wrong
URL or method answers with the same JSON error shape as every other refusal."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from chat.models import ApiToken

pytestmark = pytest.mark.django_db

# ninja's own pages: the schema, the page that shows it, and the root (404, or the docs in DEBUG).
NOT_ENDPOINTS = {"api:openapi-json", "api:openapi-view", "api:api-root"}


def _served(patterns, prefix: str = "", namespace: str = ""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _served(entry.url_patterns, route, inner)
        elif isinstance(entry, URLPattern):
            yield route, f"{namespace}{entry.name}" if entry.name else ""


def _as_openapi(route: str) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route.lstrip("^").rstrip("$"))


@pytest.fixture
def bearer(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def test_every_api_route_is_in_the_openapi_schema(client, bearer):
    documented = set(client.get("/api/v1/openapi.json", **bearer).json()["paths"])
    served = {_as_openapi(route) for route, name in _served(get_resolver().url_patterns)
              if route.lstrip("^").startswith("api/v1/") and name not in NOT_ENDPOINTS}
    assert "/api/v1/characters/{character_id}/card.charx" in served  # the walk reaches them
    assert "/api/v1/backgrounds/{background_id}/copy" in served
    assert served - documented == set()


def test_card_import_is_documented_as_a_multipart_upload(client, bearer):
    operation = client.get("/api/v1/openapi.json", **bearer).json()[
        "paths"]["/api/v1/characters/import"]["post"]
    assert "multipart/form-data" in operation["requestBody"]["content"]


def test_card_downloads_are_documented_with_their_media_type(client, bearer):
    paths = client.get("/api/v1/openapi.json", **bearer).json()["paths"]
    for fmt, media_type in (("png", "image/png"), ("charx", "application/zip")):
        answer = paths[f"/api/v1/characters/{{character_id}}/card.{fmt}"]["get"]["responses"]
        assert media_type in answer["200"]["content"]


@pytest.mark.django_db(transaction=True)
async def test_over_asgi_a_wrong_method_is_still_a_json_405(async_client, bearer):
    response = await async_client.delete("/api/v1/characters", **bearer)
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_a_wrong_method_is_a_json_405_naming_the_allowed_ones(client, bearer, character):
    response = client.patch(f"/api/v1/characters/{character}", "{}",
                            content_type="application/json", **bearer)
    assert response.status_code == 405
    error = response.json()["error"]
    assert error["code"] == "method_not_allowed"
    assert {"GET", "PUT", "DELETE"} <= set(response["Allow"].replace(",", " ").split())
    assert "PUT" in error["message"]
    assert client.get("/api/v1/characters/import", **bearer).status_code == 405


@pytest.mark.parametrize("url", ["/api/v1/nothing-here", "/api/v1/characters/a/b/c",
                                 "/api/v1/"])
def test_an_unknown_api_url_is_a_json_404(client, bearer, url):
    response = client.get(url, **bearer)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


def test_pages_outside_the_api_keep_their_html_404(alice_client):
    response = alice_client.get("/no-such-page/")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


def test_a_card_export_in_an_unknown_spec_names_the_field(client, bearer, character):
    response = client.get(f"/api/v1/characters/{character}/card.json?spec=v9", **bearer)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_spec"
    assert "spec" in response.json()["error"]["fields"]
