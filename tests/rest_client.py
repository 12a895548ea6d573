"""A JSON client per account for the REST tests: `call("put", url, body)` with a bearer token of
that account (the `as_alice` and `as_bob` fixtures, tests/conftest.py), and the header of such a
token for a test client's own calls."""

from __future__ import annotations

import json

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
