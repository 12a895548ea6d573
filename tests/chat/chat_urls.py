"""The pages and REST calls that read a chat, for the tests that put odd lines in its session
file and open every view of it."""

from __future__ import annotations


def chat_read_urls(instance_id: str, trace_id: str) -> list[str]:
    """The pages and REST calls that show the chat's first session, its turn's trace, and the
    home page that lists the chat."""
    return [
        f"/instances/{instance_id}/", f"/instances/{instance_id}/messages",
        f"/instances/{instance_id}/history/", f"/instances/{instance_id}/history/rows",
        f"/instances/{instance_id}/history/rows?q=good", f"/instances/{instance_id}/persona/",
        f"/traces/{trace_id}/", "/", f"/api/v1/instances/{instance_id}",
        f"/api/v1/sessions/sess_001?instance_id={instance_id}",
        f"/api/v1/traces/{trace_id}?include_session=1",
        f"/api/v1/instances/{instance_id}/sessions/sess_001/current_response",
        f"/api/v1/instances/{instance_id}/sessions/sess_001/current_response?turn=1",
        f"/api/v1/instances/{instance_id}/sessions/sess_001/export?format=jsonl",
        f"/api/v1/instances/{instance_id}/sessions/sess_001/export?format=md",
    ]
