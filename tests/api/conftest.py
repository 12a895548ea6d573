"""What the REST tests share: alice's calls with her API token."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken


@pytest.fixture
def api(client, alice):
    """`api(method, url, body=None)`: the call as alice, the body as JSON. A module with an
    `api` of its own (another account, a token of its own) uses that one."""
    token = ApiToken.issue(alice)

    def call(method, url, body=None):
        return getattr(client, method)(url, data=json.dumps(body) if body else None,
                                       content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {token}")
    return call
