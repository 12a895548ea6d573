"""A JSON client per account for the REST tests: `as_alice("put", url, body)` with a bearer
token of that account, and the header of such a token for a test client's own calls."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken


def bearer_auth(user) -> dict:
    """A new bearer token of `user`, as the Django test client's keyword argument."""
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


def bearer_caller(client, user):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}

    def call(method, url, body=None):
        data = json.dumps(body) if body is not None else ""
        return getattr(client, method)(url, data, content_type="application/json", **auth)
    return call


@pytest.fixture
def as_alice(client, alice):
    return bearer_caller(client, alice)


@pytest.fixture
def as_bob(client, bob):
    return bearer_caller(client, bob)
