"""Attack: markup that slips into a page (a card, lore, a reply) runs script, loads from another
site, frames the app or posts a form elsewhere. Every page answers with a Content-Security-Policy
that allows scripts and styles only from our own static files, and no page of ours needs more:
no inline <script>, no onclick=…, no style attribute."""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser

import pytest

from chat import selectors
from chat.play.turn import turn_run
from library.lore.services import lorebook_save
from library.personas.services import persona_create

pytestmark = pytest.mark.django_db


class _InlineCode(HTMLParser):
    """Every script without src (JSON data blocks aside), event handler and style attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append(f"<script> at {self.getpos()}")
        for name, _ in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=…> at {self.getpos()}")


def _inline_code(html: str) -> list[str]:
    parser = _InlineCode()
    parser.feed(html)
    return parser.found


def _policy(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy", "")
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


def _assert_locked_down(response) -> None:
    policy = _policy(response)
    assert policy, f"{response.status_code}: no Content-Security-Policy header"
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]
    assert _inline_code(response.content.decode()) == []


def _trace_id(store, instance: str) -> str:
    async def emit(event: dict) -> None:
        pass

    return asyncio.run(turn_run(store, instance_id=instance, user_text="hi", emit=emit)).trace_id


@pytest.fixture
def every_page(store, alice, character, background, instance) -> list[str]:
    trace = _trace_id(store, instance)
    lorebook = lorebook_save(store, user=alice, data={"name": "Lore", "entries": [
        {"keys": ["gate"], "content": "The gate is shut."}]})
    persona = persona_create(store, owner=alice, data={"name": "Wren"})
    return ["/", f"/instances/{instance}/", f"/instances/{instance}/history/",
            f"/instances/{instance}/persona/", f"/traces/{trace}/", "/library/",
            f"/library/characters/{character}/", "/library/characters/new",
            f"/library/backgrounds/{background}/", "/library/backgrounds/new",
            f"/library/lorebooks/{lorebook}/", "/library/lorebooks/new", "/library/personas/",
            f"/library/personas/{persona}/", "/settings/", "/no-such-page/",
            f"/instances/{instance}/messages"]


@pytest.mark.django_db(transaction=True)  # the turn reads the database from its own thread
def test_every_page_sends_a_strict_policy_and_has_no_inline_code(client, alice, every_page):
    client.force_login(alice)
    for path in every_page:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        _assert_locked_down(response)


def test_the_settings_page_of_staff_has_no_inline_handlers(client, staff, store):
    client.force_login(staff)
    response = client.get("/settings/")
    assert 'data-testid="reset-all"' in response.content.decode()
    _assert_locked_down(response)


def test_login_lockout_and_error_pages_send_the_policy_too(client, alice, settings, monkeypatch):
    _assert_locked_down(client.get("/login/"))
    for _ in range(settings.AXES_FAILURE_LIMIT):
        locked = client.post("/login/", {"username": "alice", "password": "guess"})
    assert locked.status_code == 429
    _assert_locked_down(locked)

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(selectors, "instances_overview", broken)
    client.force_login(alice)
    client.raise_request_exception = False
    failed = client.get("/")
    assert failed.status_code == 500
    _assert_locked_down(failed)


def test_a_finished_memory_action_stays_on_the_page_without_a_script(client, alice, instance,
                                                                    monkeypatch):
    """Summarize's result used to carry a <script>, then an attribute, that reloaded the page
    (wiping the result 0.8 s later); now the chat page's script moves to the new session and
    the result stays until dismissed: the fragment holds only the sentence."""
    async def summarized(*args, **kwargs):
        return {"events": 2, "new_session_id": "sess_002"}

    monkeypatch.setattr("chat.services.memory_actions.memory_action", summarized)
    client.force_login(alice)
    response = client.post(f"/instances/{instance}/memory/summarize", HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert "data-reload-after" not in page
    # Named as players know it (issue 33 item 3), never by its id.
    assert "conversation 2" in page and "sess_002" not in page
    assert _inline_code(page) == []
