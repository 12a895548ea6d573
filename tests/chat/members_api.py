"""The REST endpoint of a conversation's members, called with a test client as the members card
and the API's users call it."""

from __future__ import annotations


def members_call(client, instance_id: str, method: str, path: str = "", body: dict | None = None):
    """`method` on the conversation's members (`path` under them), `body` sent as JSON."""
    call = getattr(client, method)
    url = f"/api/v1/instances/{instance_id}/members{path}"
    if body is None:
        return call(url)
    return call(url, body, content_type="application/json")
